import FutureCore
import Glibc
import _CFutureShims

/// A private temporary file (mode 0600, unnamed: `O_TMPFILE`, or unlinked at once) that holds
/// output past the memory limit. It has no name to leave behind: the kernel frees it when the last
/// descriptor closes, on every exit path, SIGKILL included.
///
/// Writes and reads are positional (`pwrite`/`pread`), so a reader may read the written part while
/// the writer appends further on, from another thread.
final class SpillFile: Sendable {
    private let descriptor: Int32

    /// Creates the file in `directory`; throws the errno on failure.
    init(in directory: String) throws(SystemError) {
        let fd = fc_private_tempfile(directory)
        guard fd >= 0 else { throw SystemError(errno: errno, call: "creating a temporary file in \(directory)") }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, call: "writing a temporary file")
            }
            done += n
        }
    }

    /// Reads `count` bytes at `offset` (all of them must have been written).
    func read(at offset: Int, count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno, call: "reading a temporary file")
            }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(count - done)
        return bytes
    }
}

/// A failed system call: which one, and its errno.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let errno: Int32
    public let call: String

    public init(errno: Int32, call: String) {
        self.errno = errno
        self.call = call
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
