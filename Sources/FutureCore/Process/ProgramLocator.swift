import Glibc

/// Finds the executable for a program name as `execvp` would (a name with a `/` is a path; others
/// are looked up in `PATH`), remembering what it found so the per-command cost is a dictionary hit.
final class ProgramLocator: Sendable {
    private let found = Locked<[String: String]>([:])

    /// The path to spawn, or the errno the shell would report (ENOENT: not found).
    func locate(_ name: String) -> Result<String, SystemError> {
        if name.contains("/") { return .success(name) }
        if let path = found.withLock({ $0[name] }) { return .success(path) }
        let searchPath = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        var denied = false
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            if access(candidate, X_OK) == 0 {
                found.withLock { $0[name] = candidate }
                return .success(candidate)
            }
            if errno == EACCES { denied = true }
        }
        return .failure(SystemError(errno: denied ? EACCES : ENOENT, call: "looking up \(name) in PATH"))
    }
}
