import FutureCore
import Glibc

/// Finds the executable for a program name as `execvp` would (a name with a `/` is a path; others
/// are looked up in `PATH`), remembering what it found so the per-command cost is a dictionary hit.
final class ProgramLocator: Sendable {
    private let found = Locked<[String: String]>([:])

    /// The path to spawn, or the errno the shell would report (ENOENT: not found).
    func locate(_ name: String) -> Result<String, SystemError> {
        if name.contains("/") { return .success(name) }
        if let path = found.withLock({ $0[name] }) { return .success(path) }
        let result = Self.search(name)
        if case .success(let path) = result { found.withLock { $0[name] = path } }
        return result
    }

    fileprivate static func search(_ name: String) -> Result<String, SystemError> {
        let searchPath = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        var denied = false
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            if isExecutableFile(candidate) { return .success(candidate) }
            if errno == EACCES { denied = true }
        }
        return .failure(SystemError(errno: denied ? EACCES : ENOENT, call: "looking up \(name) in PATH"))
    }

    fileprivate static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        guard access(path, X_OK) == 0, stat(path, &info) == 0 else { return false }
        guard info.st_mode & S_IFMT == S_IFREG else {
            errno = EACCES
            return false
        }
        return true
    }
}

extension Command {
    /// The file `program` would run as (a path, checked, or a name found in `PATH`), or why it
    /// cannot run: checked before anything starts, so that a wrong program is one clear error, not
    /// one failure per command. Blocks for the file-system look-ups only.
    package static func locateExecutable(_ program: String) -> Result<String, SystemError> {
        guard program.contains("/") else { return ProgramLocator.search(program) }
        if ProgramLocator.isExecutableFile(program) { return .success(program) }
        return .failure(SystemError(errno: errno, call: "checking \(program)"))
    }
}
