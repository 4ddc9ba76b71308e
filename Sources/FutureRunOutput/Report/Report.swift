import FutureRunEngine
import FutureRunModel

/// A record of the run written as jobs finish (`--joblog`, `--json`, `--junit`, `--results`), so an
/// interrupted run keeps what completed. Called on the printer thread, in input order.
package protocol Report: AnyObject {
    /// A chunk of a job's output, in order, as it is printed (or held, with `--quiet-success`).
    func output(_ job: Job, _ bytes: [UInt8], isError: Bool)
    /// The job is done.
    func finished(_ outcome: JobOutcome)
    /// The run is over: flush and close.
    func close()
    /// The first write error, if any: reported at the end, and the run fails.
    var error: String? { get }
    /// Whether the jobs' stdout, or stderr, goes here instead of to futurerun's own (`--files`,
    /// GNU's `--results`).
    func takes(stderr: Bool) -> Bool
    /// The line to print on stdout for `job`, once it has finished, in place of the stdout it
    /// took (`--files`: the file's name); asked once.
    func takeLine(for job: Job) -> String?
}

extension Report {
    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {}
    package func close() {}
    package func takes(stderr: Bool) -> Bool { false }
    package func takeLine(for job: Job) -> String? { nil }
}
