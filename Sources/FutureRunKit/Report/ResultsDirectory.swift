import CFutureShims
import Glibc

/// `--results DIR`: a folder per job, named by its number, holding `stdout`, `stderr` (written as
/// the output is printed) and `meta.json` (the job's JSON record). Everything is created with
/// `openat` below DIR's descriptor and `O_NOFOLLOW`: a symbolic link planted in DIR is refused, and
/// no path can lead outside it.
final class ResultsDirectory: Report {
    private let directory: Int32
    private let path: String
    private var open: [Int: (out: ReportFile, err: ReportFile)] = [:]
    private(set) var error: String?

    init(path: String) throws(UsageError) {
        if mkdir(path, 0o755) != 0, errno != EEXIST {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        let descriptor = fr_open_nofollow(AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0)
        guard descriptor >= 0 else {
            throw .cannotWrite(path: path, reason: errno == ELOOP || errno == ENOTDIR ? "not a directory (symbolic links are refused)" : String(cString: strerror(errno)))
        }
        self.directory = descriptor
        self.path = path
    }

    deinit { Glibc.close(directory) }

    private func files(for job: Job) -> (out: ReportFile, err: ReportFile)? {
        if let files = open[job.number] { return files }
        guard error == nil else { return nil }
        let name = "\(job.number)"
        if mkdirat(directory, name, 0o755) != 0, errno != EEXIST {
            error = "cannot create '\(path)/\(name)': \(String(cString: strerror(errno)))"
            return nil
        }
        let folder = fr_open_nofollow(directory, name, O_RDONLY | O_DIRECTORY, 0)
        guard folder >= 0 else {
            error = "refusing '\(path)/\(name)': not a directory of its own (symbolic links are refused)"
            return nil
        }
        defer { Glibc.close(folder) }
        do {
            let files = (try ReportFile(at: folder, name: "stdout", display: "\(path)/\(name)/stdout"),
                         try ReportFile(at: folder, name: "stderr", display: "\(path)/\(name)/stderr"))
            open[job.number] = files
            return files
        } catch {
            self.error = error.description
            return nil
        }
    }

    func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        guard let files = files(for: job) else { return }
        if isError { files.err.write(bytes) } else { files.out.write(bytes) }
    }

    func finished(_ outcome: JobOutcome) {
        guard outcome.status != .notStarted, let files = files(for: outcome.job) else { return }
        open[outcome.job.number] = nil
        for file in [files.out, files.err] where file.error != nil { error = error ?? file.error }
        let folder = fr_open_nofollow(directory, "\(outcome.job.number)", O_RDONLY | O_DIRECTORY, 0)
        guard folder >= 0 else { return }
        defer { Glibc.close(folder) }
        do {
            let meta = try ReportFile(at: folder, name: "meta.json", display: "\(path)/\(outcome.job.number)/meta.json")
            meta.write(JSONLines.object(outcome) + "\n")
            if let failure = meta.error { error = error ?? failure }
        } catch {
            self.error = self.error ?? error.description
        }
    }
}

extension ReportFile {
    /// Creates (or truncates) `name` in the folder `directory`, never through a symbolic link.
    convenience init(at directory: Int32, name: String, display: String) throws(UsageError) {
        let descriptor = fr_open_nofollow(directory, name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw .cannotWrite(path: display, reason: errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno)))
        }
        self.init(descriptor: descriptor, path: display)
    }
}
