/// Which of the jobs read this run starts: this node's shard, less what `--resume` skips, or only
/// what `--rerun-failed` reruns.
package struct JobSelection: Sendable {
    package var shard: Shard?
    package var timings: ShardTimings?
    package var resume: ResumeLog?
    package var rerun: RerunList?

    package init() {}
}
