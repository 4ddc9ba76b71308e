import FutureProcess
import FutureRunEngine
import FutureRunModel
import Glibc

/// `--files`: each job's stdout saved in a file of its own in the temporary directory
/// (`$TMPDIR/futurerun-XXXXXX`, kept after the run), whose name is printed in its place, as
/// GNU parallel's `--files` does. Stderr is printed as usual.
///
/// Used by the printer thread only.
package final class OutputFiles: Report {
    private let directory: String
    private var open: [Int: ReportFile] = [:]
    /// Each finished job's file name, until it is printed.
    private var finishedPaths: [Int: String] = [:]
    package private(set) var error: String?

    package init(directory: String = TemporaryDirectory.path) { self.directory = directory }

    /// The job's file, created at its first output (or at its end, if it wrote nothing).
    private func file(for job: Job) -> ReportFile? {
        if let file = open[job.number] { return file }
        guard error == nil else { return nil }
        let made: (descriptor: Int32, path: String)
        switch TemporaryNames.file("futurerun", in: directory) {
        case .success(let file): made = file
        case .failure(let failure):
            error = "cannot create a file in '\(directory)' for --files: \(String(cString: strerror(failure.errno)))"
            return nil
        }
        let file = ReportFile(descriptor: made.descriptor, path: made.path)
        open[job.number] = file
        return file
    }

    /// Stdout: its file's name is printed in its place.
    package func takes(stderr: Bool) -> Bool { !stderr }

    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        guard !isError else { return }
        file(for: job)?.write(bytes)
    }

    package func finished(_ outcome: JobOutcome) {
        guard !outcome.status.neverRan, let file = file(for: outcome.job) else { return }
        open[outcome.job.number] = nil  // closed as it goes
        if let failure = file.error { error = error ?? failure }
        finishedPaths[outcome.job.number] = file.path
    }

    /// The file `job`'s stdout went to, once it has finished; asked once.
    package func takeLine(for job: Job) -> String? { finishedPaths.removeValue(forKey: job.number) }

    package func close() {}
}
