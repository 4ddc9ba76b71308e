/// Which of the jobs read this run starts: this node's shard, less what `--resume` skips, or only
/// what `--rerun-failed` reruns.
struct JobSelection: Sendable {
    var shard: Shard?
    var timings: ShardTimings?
    var resume: ResumeLog?
    var rerun: RerunList?

    init() {}
}
