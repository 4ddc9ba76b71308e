import FutureCore

/// Jobs in input order, one stage pulling from the one before. Pulled from one thread (the
/// scheduler's, or the dry run's).
package protocol JobStream: Sendable {
    /// The next job, blocking while input is read; `nil` when there are no more.
    func next() -> Job?
}

/// Where a run's jobs are made: ``JobSource`` from commands, arguments and input lines;
/// ``BlockJobs`` from blocks of the input (`--pipe`).
package protocol JobOrigin: JobStream {
    /// The number of jobs, once known. Any thread.
    var knownTotal: Int? { get }
    /// A read error on the input, if reading stopped because of one.
    var readError: Int32? { get }
    /// What the run should say at its end about its input, if anything (a file that shrank).
    var inputNotice: String? { get }
}

extension JobOrigin {
    package var inputNotice: String? { nil }
}

/// A run's jobs, as the scheduler and the printer take them: the ``JobOrigin`` makes them from the
/// input; ``NamedJobs`` checks each name and what it waits for; ``ShardedJobs`` keeps this node's
/// shard; ``ResumedJobs`` leaves out what `--resume` and `--rerun-failed` skip.
package final class JobPipeline: JobStream {
    private let source: any JobOrigin
    private let head: any JobStream
    private let resumed: ResumedJobs?
    /// Said once at the start, with `--shard`: which share this node runs.
    package let shardNotice: String?

    /// Builds the stages `selection` asks for; with `--shard`, reads the whole input now.
    package init(_ source: any JobOrigin, selection: JobSelection) {
        self.source = source
        var head: any JobStream = NamedJobs(source)
        if let shard = selection.shard {
            let sharded = ShardedJobs(head, shard: shard, timings: selection.timings)
            shardNotice = sharded.notice
            head = sharded
        } else {
            shardNotice = nil
        }
        if let log = selection.resume {
            resumed = ResumedJobs(head) { log.skip($0.number) }
        } else if let rerun = selection.rerun {
            resumed = ResumedJobs(head) { rerun.reruns($0) ? nil : .succeeded }
        } else {
            resumed = nil
        }
        self.head = resumed ?? head
    }

    package func next() -> Job? { head.next() }

    /// The named jobs `--resume` skipped since the last call, with how they ended before.
    package func takeSettled() -> [(name: String, status: JobStatus)] { resumed?.takeSettled() ?? [] }

    /// The number of jobs read, once known (at once for command-line forms, at the end of input
    /// for streamed ones). Any thread.
    package var knownTotal: Int? { source.knownTotal }

    /// A read error on the input, if reading stopped because of one.
    package var readError: Int32? { source.readError }

    package var inputNotice: String? { source.inputNotice }
}
