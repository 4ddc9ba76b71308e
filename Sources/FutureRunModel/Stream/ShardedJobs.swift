import FutureCore
import FutureProcess

/// `--shard`: the whole stream read ahead, grouped by `after=`, and this node's share kept.
package final class ShardedJobs: JobStream {
    private let jobs: Locked<FIFO<Job>>
    /// Said once at the start: which share this node runs.
    package let notice: String

    /// Reads every job of `upstream`, keeps this shard's (see ``ShardPlan``), and says what this
    /// node runs. Blocks while input is read.
    package init(_ upstream: any JobStream, shard: Shard, timings: ShardTimings?) {
        var all: [Job] = []
        while let job = upstream.next() { all.append(job) }
        let (groupOf, groups) = Self.groups(all, timings: timings)
        let plan = ShardPlan.assign(groups, shards: shard.count, balanced: timings != nil)
        var mine = FIFO<Job>()
        var count = 0
        for (position, job) in all.enumerated() where plan.shards[groupOf[position]] == shard.index {
            mine.append(job)
            count += 1
        }
        jobs = Locked(mine)
        var notice = "shard \(shard.index)/\(shard.count): \(count) of \(all.count) jobs"
        if count == 0 { notice += "; nothing to run here" }
        if timings != nil {
            notice +=
                " (expected \(DurationFormat.format(.seconds(plan.expected[shard.index] ?? 0))); shards "
                + ShardPlan.describe(plan.expected, shards: shard.count) + ")"
        }
        self.notice = notice
    }

    package func next() -> Job? { jobs.withLock { $0.popFirst() } }

    /// The groups jobs joined by `after=`/`after-any=` make (each must run on one shard), and each
    /// job's group. A group is known by its first job's name and expects its jobs' summed times.
    private static func groups(_ jobs: [Job], timings: ShardTimings?) -> (groupOf: [Int], groups: [ShardGroup]) {
        var parent = Array(jobs.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        var position: [String: Int] = [:]
        for (index, job) in jobs.enumerated() {
            guard let header = job.header else { continue }
            position[header.name] = index
            for name in header.prerequisites {
                guard let other = position[name] else { continue }
                let (a, b) = (root(index), root(other))
                parent[max(a, b)] = min(a, b)  // the earlier job stays the root: it names the group
            }
        }
        let mean = timings?.mean ?? 1
        var groupOfRoot: [Int: Int] = [:]
        var groups: [ShardGroup] = []
        var groupOf = [Int](repeating: 0, count: jobs.count)
        for (index, job) in jobs.enumerated() {
            let top = root(index)
            let group =
                groupOfRoot[top]
                ?? {
                    groups.append(ShardGroup(key: jobs[top].name, expected: 0))
                    groupOfRoot[top] = groups.count - 1
                    return groups.count - 1
                }()
            groupOf[index] = group
            groups[group].expected += timings?.seconds(name: job.name, command: job.displayCommand) ?? mean
        }
        return (groupOf, groups)
    }
}
