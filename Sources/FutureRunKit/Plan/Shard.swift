/// `--shard K/N`: which share of the jobs this CI node runs. A job's shard comes from its name (or
/// command) alone, through FNV-1a (64-bit, over the name's UTF-8 bytes) modulo N, so it stays put
/// when other jobs are added or removed; jobs joined by `after=` share the shard of the first of
/// them. With timings from an earlier run (``ShardTimings``), groups go longest first onto the
/// least loaded shard instead.
struct Shard: Sendable, Equatable {
    /// 1-based.
    let index: Int
    let count: Int

    init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`.
    static func parse(_ text: String) -> Shard? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        return Shard(index: index, count: count)
    }

    /// FNV-1a, 64-bit: the documented, fixed hash of a job's name (never Swift's seeded `Hasher`).
    static func hash(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// The CI systems' node variables, read by `--shard auto`: (index, total, whether the index is 1-based).
    static let ciVariables: [(index: String, total: String, oneBased: Bool)] = [
        ("CI_NODE_INDEX", "CI_NODE_TOTAL", true),  // GitLab parallel:
        ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", false),  // CircleCI parallelism
        ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", false),  // Buildkite parallelism
        ("BITBUCKET_PARALLEL_STEP", "BITBUCKET_PARALLEL_STEP_COUNT", false),  // Bitbucket parallel steps
        ("SLURM_PROCID", "SLURM_NTASKS", false),  // Slurm tasks
    ]

    /// The shard the environment names, the first CI system's that is set; `nil` with none.
    /// A variable set to nonsense is an error (the variable's name and value).
    static func fromEnvironment(_ environment: [String: String]) -> Result<Shard?, UsageError> {
        for variables in ciVariables {
            guard let indexText = environment[variables.index], let totalText = environment[variables.total] else { continue }
            guard let index = Int(indexText), let total = Int(totalText),
                let shard = Shard(index: variables.oneBased ? index : index + 1, count: total)
            else {
                return .failure(
                    .invalidValue(
                        option: "--shard auto", value: "\(variables.index)=\(indexText) \(variables.total)=\(totalText)",
                        expected: "a node index within the node total"))
            }
            return .success(shard)
        }
        return .success(nil)
    }
}

/// One group of jobs that must run on one shard (a job and the jobs `after=` joins it to), as the
/// plan sees it.
struct ShardGroup: Equatable {
    /// The name of its first job: what the hash reads.
    var key: String
    /// Expected seconds, from the timings (the mean of the known ones for a job not in them).
    var expected: Double
}

/// Assigns groups to shards: by hash, or (with timings) longest first onto the least loaded shard,
/// ties to the lower shard. Every node computes the same plan from the same list and timings.
/// Memory grows with the groups, never with the shard count (`--shard 1/9223372036854775807`).
enum ShardPlan {
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
    static func describe(_ expected: [Int: Double], shards: Int, limit: Int = 8) -> String {
        let shown = (1...min(shards, limit)).map { DurationFormat.format(.seconds(expected[$0] ?? 0)) }
        return shown.joined(separator: ", ") + (shards > limit ? ", … (\(shards - limit) more)" : "")
    }
}
