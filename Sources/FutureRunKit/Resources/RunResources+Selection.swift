import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput
import Glibc

extension RunResources {
    /// The selection `--shard`, `--shard-timings` and `--resume` ask for, with the notice to say
    /// (`--shard auto` outside CI). Reads the timings file and the joblog now: a file that cannot be
    /// read is bad usage, before anything runs.
    package static func selection(
        _ options: Options, environment: [String: String]
    ) throws(UsageError) -> (JobSelection, [String]) {
        var selection = JobSelection()
        var notices: [String] = []
        switch options.shard {
        case .fixed(let shard)?: selection.shard = shard
        case .auto(let count)?:
            switch Shard.fromEnvironment(environment, count: count) {
            case .success(let shard?): selection.shard = shard
            case .success(nil):
                selection.shard = Shard(index: 1, count: 1)
                notices.append(
                    "--shard auto: no CI node variables are set (CI_NODE_INDEX, CIRCLE_NODE_INDEX, ...): running every job, as shard 1/1"
                )
            case .failure(let error): throw error
            }
        case nil: break
        }
        // Options.validate() has checked that --shard-timings comes with --shard, --resume with --joblog.
        if let path = options.shardTimings {
            guard let text = TextFile.read(path) else {
                throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
            }
            guard let timings = ShardTimings.parse(text) else {
                throw .unreadableFile(
                    path: path, reason: "it is no --joblog, --json or --junit report of futurerun or GNU parallel")
            }
            selection.timings = timings
            if let notice = timings.notice(path: path) { notices.append(notice) }
        }
        if let mode = options.resume, let path = options.jobLog?.path {
            // A joblog not written yet holds nothing to skip.
            let log = ResumeLog(mode: mode, joblog: TextFile.read(path) ?? "")
            if log.skippedLines > 0 {
                notices.append(
                    "\(mode.option): \(log.skippedLines) lines of \(path) are no joblog records; the jobs they name run again")
            }
            selection.resume = log
        }
        if !options.rerunFailed.isEmpty {
            var rerun = RerunList()
            for path in options.rerunFailed {
                guard let text = TextFile.read(path) else {
                    throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
                }
                guard rerun.add(report: text) else {
                    throw .unreadableFile(path: path, reason: "it is no --junit or --joblog report of futurerun or GNU parallel")
                }
            }
            let files = options.rerunFailed.count == 1 ? options.rerunFailed[0] : "\(options.rerunFailed.count) reports"
            notices.append(
                rerun.count == 0
                    ? "--rerun-failed: no job failed in \(files); nothing to run"
                    : "--rerun-failed: running the \(rerun.count) job\(rerun.count == 1 ? "" : "s") that failed or did not finish in \(files)"
            )
            selection.rerun = rerun
        }
        return (selection, notices)
    }
}
