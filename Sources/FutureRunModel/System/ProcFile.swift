import Glibc

/// A `/proc` or cgroup file kept open and read again from its start each time: a `pread` into a
/// buffer, no open, no path lookup (the kernel makes the text anew at offset 0). For readings taken
/// at every job's start or end.
package final class ProcFile: Sendable {
    private let descriptor: Int32

    package init?(_ path: String) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// The file's text now (up to 64 KiB), or `nil` if it cannot be read.
    package func read() -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { buffer in
            var length = 0
            while length < buffer.count {
                let count = pread(descriptor, buffer.baseAddress! + length, buffer.count - length, off_t(length))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return count < 0 ? nil : String(decoding: buffer[..<length], as: UTF8.self) }
                length += count
            }
            return String(decoding: buffer[..<length], as: UTF8.self)
        }
    }
}
