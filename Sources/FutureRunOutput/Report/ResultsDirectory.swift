import FutureRunEngine
import FutureRunModel
import Glibc

/// `--results DIR`: a folder per job, named by its number, holding `stdout`, `stderr` (written as
/// the output is printed) and `meta.json` (the job's JSON record). Everything is created with
/// `openat` below DIR's descriptor and `O_NOFOLLOW`: a symbolic link planted in DIR is refused, and
/// no path can lead outside it.
///
/// A DIR from an earlier run is replaced, never mixed with: the job folders futurerun wrote there
/// are removed before anything runs, and a DIR holding anything else is refused.
package final class ResultsDirectory: Report {
    private let directory: Int32
    private let path: String
    private var open: [Int: (out: ReportFile, err: ReportFile)] = [:]
    package private(set) var error: String?

    package init(path: String) throws(UsageError) {
        if mkdir(path.systemPath, 0o755) != 0, errno != EEXIST {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        let descriptor = openat(AT_FDCWD, path.systemPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotWrite(
                path: path,
                reason: errno == ELOOP || errno == ENOTDIR
                    ? "not a directory (symbolic links are refused)" : String(cString: strerror(errno)))
        }
        self.directory = descriptor
        self.path = path
        try removeEarlierRun()
    }

    private static let jobFiles: Set<String> = ["stdout", "stderr", "meta.json"]

    /// Removes the job folders of an earlier run (a number holding only futurerun's files); any
    /// other entry is an error, and then nothing is removed.
    private func removeEarlierRun() throws(UsageError) {
        var folders: [(name: String, files: [String])] = []
        for name in Directory.entries(of: directory) {
            let folder = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let files = folder >= 0 ? Directory.entries(of: folder) : []
            if folder >= 0 { Glibc.close(folder) }
            guard folder >= 0, !name.isEmpty, name.allSatisfy(\.isASCII), name.allSatisfy(\.isNumber),
                files.allSatisfy(Self.jobFiles.contains)
            else {
                var info = stat()
                let isLink = fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFLNK
                let what = isLink ? "a symbolic link (symbolic links are refused)" : "which futurerun did not write"
                throw .cannotWrite(
                    path: path, reason: "it holds '\(SafeText.sanitize(name))', \(what); use an empty or new folder")
            }
            folders.append((name, files))
        }
        for (name, files) in folders {
            let folder = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { continue }
            for file in files { unlinkat(folder, file, 0) }
            Glibc.close(folder)
            guard unlinkat(directory, name, AT_REMOVEDIR) == 0 else {
                throw .cannotWrite(path: "\(path)/\(name)", reason: String(cString: strerror(errno)))
            }
        }
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
        let folder = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else {
            error = "refusing '\(path)/\(name)': not a directory of its own (symbolic links are refused)"
            return nil
        }
        defer { Glibc.close(folder) }
        do {
            let files = (
                try ReportFile(at: folder, name: "stdout", display: "\(path)/\(name)/stdout"),
                try ReportFile(at: folder, name: "stderr", display: "\(path)/\(name)/stderr")
            )
            open[job.number] = files
            return files
        } catch {
            self.error = error.description
            return nil
        }
    }

    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        guard let files = files(for: job) else { return }
        if isError { files.err.write(bytes) } else { files.out.write(bytes) }
    }

    package func finished(_ outcome: JobOutcome) {
        guard !outcome.status.neverRan, let files = files(for: outcome.job) else { return }
        open[outcome.job.number] = nil
        for file in [files.out, files.err] where file.error != nil { error = error ?? file.error }
        let folder = openat(directory, "\(outcome.job.number)", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }
        defer { Glibc.close(folder) }
        do {
            let meta = try ReportFile(at: folder, name: "meta.json", display: "\(path)/\(outcome.job.number)/meta.json")
            meta.write(JSONLinesFormat.object(outcome) + "\n")
            if let failure = meta.error { error = error ?? failure }
        } catch {
            self.error = self.error ?? error.description
        }
    }
}

extension ReportFile {
    /// Creates (or truncates) `name` in the folder `directory`, never through a symbolic link.
    package convenience init(at directory: Int32, name: String, display: String) throws(UsageError) {
        let descriptor = openat(directory, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .cannotWrite(path: display, reason: errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno)))
        }
        self.init(descriptor: descriptor, path: display)
    }
}
