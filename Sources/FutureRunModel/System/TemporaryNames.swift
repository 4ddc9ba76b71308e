import FutureProcess
import Glibc

/// New names in the temporary directory (``TemporaryDirectory``, `$TMPDIR` or `/tmp`), each made
/// by the system so that no two runs, and nothing planted there, can share one.
package enum TemporaryNames {
    /// A new private directory (0700), `BASE/PREFIX.XXXXXX`.
    package static func directory(_ prefix: String, in base: String = TemporaryDirectory.path) -> String? {
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        return String(cString: made)
    }

    /// A new file (0600), `BASE/PREFIX-XXXXXX`, open for writing and closed in children: its
    /// descriptor and path, or the errno.
    package static func file(
        _ prefix: String, in base: String = TemporaryDirectory.path
    ) -> Result<(descriptor: Int32, path: String), SystemError> {
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return .failure(SystemError(errno: errno, call: "mkstemp")) }
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
            let error = errno
            close(descriptor)
            return .failure(SystemError(errno: error, call: "fcntl"))
        }
        return .success((descriptor, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }
}
