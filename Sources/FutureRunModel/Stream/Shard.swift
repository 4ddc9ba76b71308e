/// `--shard K/N`: which share of the jobs this CI node runs. A job's shard comes from its name (or
/// command) alone, through FNV-1a (64-bit, over the name's UTF-8 bytes) modulo N, so it stays put
/// when other jobs are added or removed; jobs joined by `after=` share the shard of the first of
/// them. With timings from an earlier run (``ShardTimings``), groups go longest first onto the
/// least loaded shard instead.
package struct Shard: Sendable, Equatable {
    /// 1-based.
    package let index: Int
    package let count: Int

    package init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`.
    package static func parse(_ text: String) -> Shard? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        return Shard(index: index, count: count)
    }

    /// FNV-1a, 64-bit: the documented, fixed hash of a job's name (never Swift's seeded `Hasher`).
    package static func hash(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// The node variables `--shard auto` reads, in this order: (index, total, whether the index is
    /// 1-based). A total of `nil`: the system does not pass one, `--shard auto/N` gives it.
    static let ciVariables: [(index: String, total: String?, oneBased: Bool)] = [
        ("CI_NODE_INDEX", "CI_NODE_TOTAL", true),  // GitLab parallel:
        ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", false),  // CircleCI parallelism
        ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", false),  // Buildkite parallelism
        ("BITBUCKET_PARALLEL_STEP", "BITBUCKET_PARALLEL_STEP_COUNT", false),  // Bitbucket parallel steps
        // Slurm job arrays (their MIN and STEP read too, below), before Slurm's tasks.
        ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", false),
        ("SLURM_PROCID", "SLURM_NTASKS", false),  // Slurm tasks
        ("BATCH_TASK_INDEX", "BATCH_TASK_COUNT", false),  // Google Cloud Batch
        ("JOB_COMPLETION_INDEX", nil, false),  // Kubernetes indexed jobs
        ("AWS_BATCH_JOB_ARRAY_INDEX", nil, false),  // AWS Batch array jobs
    ]

    /// Slurm's array variables besides the index and count.
    static let slurmArrayVariables = ["SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"]

    /// The shard the environment names, the first system's that is set; `nil` with none. `count`:
    /// the N of `--shard auto/N`, for the systems that pass no total (and checked against those
    /// that do). A variable set to nonsense is an error (the variable's name and value).
    package static func fromEnvironment(_ environment: [String: String], count: Int? = nil) -> Result<Shard?, UsageError> {
        for variables in ciVariables {
            guard let indexText = environment[variables.index] else { continue }
            let totalText = variables.total.flatMap { environment[$0] } ?? count.map(String.init)
            let said = "\(variables.index)=\(indexText)" + (variables.total.map { " \($0)=\(totalText ?? "")" } ?? "")
            guard let totalText else {
                if variables.index == "SLURM_ARRAY_TASK_ID" {
                    // Half an array's variables: running every job in every task would be wrong.
                    return .failure(
                        .invalidValue(
                            option: "--shard auto", value: said,
                            expected: "SLURM_ARRAY_TASK_COUNT beside SLURM_ARRAY_TASK_ID (as Slurm sets them), or --shard auto/N")
                    )
                }
                if variables.total != nil { continue }
                return .failure(
                    .needsOption(
                        option: "--shard auto with \(variables.index)", needs: "the number of shards, which it does not say",
                        example: "futurerun --shard auto/4 ..."))
            }
            var position = Int(indexText)
            if variables.index == "SLURM_ARRAY_TASK_ID", let id = position {
                // An array's task ids need not start at 0 nor go in ones (--array=10-40:10).
                let first = Int(environment["SLURM_ARRAY_TASK_MIN"] ?? "") ?? 0
                let step = Int(environment["SLURM_ARRAY_TASK_STEP"] ?? "") ?? 1
                position = step > 0 && (id - first) % step == 0 ? (id - first) / step : nil
            }
            guard let index = position, let total = Int(totalText), count == nil || count == total,
                let shard = Shard(index: variables.oneBased ? index : index + 1, count: total)
            else {
                return .failure(
                    .invalidValue(
                        option: "--shard auto" + (count.map { "/\($0)" } ?? ""), value: said,
                        expected: "a node index within the node total" + (count == nil ? "" : ", and that total")))
            }
            return .success(shard)
        }
        return .success(nil)
    }
}

/// One group of jobs that must run on one shard (a job and the jobs `after=` joins it to), as the
/// plan sees it.
package struct ShardGroup: Equatable {
    /// The name of its first job: what the hash reads.
    package var key: String
    /// Expected seconds, from the timings (the mean of the known ones for a job not in them).
    package var expected: Double
}

/// Assigns groups to shards: by hash, or (with timings) longest first onto the least loaded shard,
/// ties to the lower shard. Every node computes the same plan from the same list and timings.
/// Memory grows with the groups, never with the shard count (`--shard 1/9223372036854775807`).
package enum ShardPlan {
    /// The shard (1-based) of each group, in the groups' order, and the expected seconds of the
    /// shards that got any (a shard not there expects none).
    static func assign(_ groups: [ShardGroup], shards: Int, balanced: Bool) -> (shards: [Int], expected: [Int: Double]) {
        var load: [Int: Double] = [:]
        var assigned = [Int](repeating: 0, count: groups.count)
        if !balanced {
            for (position, group) in groups.enumerated() {
                let shard = Int(Shard.hash(group.key) % UInt64(shards)) + 1
                assigned[position] = shard
                load[shard, default: 0] += group.expected
            }
            return (assigned, load)
        }
        // Longest first onto the least loaded: with more shards than groups, each group gets an
        // empty shard of its own, the lowest; so only the first `groups.count` shards are looked at.
        let used = max(1, min(shards, groups.count))
        var loads = [Double](repeating: 0, count: used)
        let order = groups.indices.sorted { a, b in
            groups[a].expected != groups[b].expected
                ? groups[a].expected > groups[b].expected : Shard.hash(groups[a].key) < Shard.hash(groups[b].key)
        }
        for position in order {
            let lightest = loads.indices.min { loads[$0] < loads[$1] }!
            assigned[position] = lightest + 1
            loads[lightest] += groups[position].expected
        }
        for (index, value) in loads.enumerated() where value > 0 { load[index + 1] = value }
        return (assigned, load)
    }

    /// The expected times of shards 1... for a notice: at most `limit` of them, then how many more.
    package static func describe(_ expected: [Int: Double], shards: Int, limit: Int = 8) -> String {
        let shown = (1...min(shards, limit)).map { DurationFormat.format(.seconds(expected[$0] ?? 0)) }
        return shown.joined(separator: ", ") + (shards > limit ? ", … (\(shards - limit) more)" : "")
    }
}
