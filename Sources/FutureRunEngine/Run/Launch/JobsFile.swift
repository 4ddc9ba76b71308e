import FutureRunModel
import Glibc

/// GNU parallel's `-j FILE`: the width read from FILE at the start and again as each job ends, so
/// that writing the file widens or narrows a run that goes on. FILE holds what `-j` takes (`4`,
/// `0`, `50%`); a file that cannot be read, or holds something else, leaves the width as it was.
package struct JobsFile: Sendable {
    package let path: String
    package let cpus: Int
    /// The limits that lower any width (descriptors, processes).
    package let cap: @Sendable (Int) -> Int

    /// What `text` asks for, if it is a `-j` value.
    package static func jobs(_ text: String) -> Options.Jobs? {
        try? OptionValue.jobsValue(text.filter { !$0.isWhitespace }, option: "--jobs")
    }

    /// The width the file asks for now, within the limits, or why it cannot be read (then the
    /// last width stays). Never waits for a writer: a FIFO put in the file's place is not read.
    /// Blocks on the file system.
    package func width() -> Result<Int, Problem> {
        guard let text = TextFile.readRegular(path) else {
            return .failure(Problem(errno == EINVAL ? "it is no longer a regular file" : String(cString: strerror(errno))))
        }
        guard let jobs = Self.jobs(text) else { return .failure(Problem("it holds no number of jobs")) }
        return .success(cap(jobs.width(cpus: cpus)))
    }

    /// Why the file could not give a width.
    package struct Problem: Error, Equatable {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
    }

    package init(path: String, cpus: Int, cap: @escaping @Sendable (Int) -> Int) {
        self.path = path
        self.cpus = cpus
        self.cap = cap
    }
}
