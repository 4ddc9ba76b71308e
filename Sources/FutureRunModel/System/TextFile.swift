import Glibc

/// Small text files read whole: a timings report, a joblog to resume from, the files the option
/// table renders. Blocks on the file system.
package enum TextFile {
    /// The whole file as text (bytes that are not UTF-8 show as U+FFFD), or `nil` if it cannot be
    /// read (`errno` says why).
    package static func read(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The whole file's bytes, or `nil` if it cannot be opened or read (`errno` says why).
    package static func bytes(_ path: String) -> [UInt8]? {
        guard let file = fopen(path.systemPath, "re") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[0..<count] }
        return ferror(file) == 0 ? bytes : nil
    }

    /// The whole of a regular file, read without waiting: a FIFO or device put where a file was
    /// expected is refused, not opened for a read that could block for ever (`errno` is then
    /// `EINVAL`). `nil` if it cannot be read (`errno` says why).
    package static func readRegular(_ path: String) -> String? {
        let descriptor = open(path.systemPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let file = fdopen(descriptor, "r") else {
            close(descriptor)
            errno = EINVAL
            return nil
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[0..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The lines of `text`, ended by LF or CRLF (a CRLF is one `Character` in Swift, so splitting
    /// at `"\n"` alone would read a CRLF file as one line); the last may lack its line end.
    package static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.dropLast(
            text.isEmpty || text.last == "\n" || text.last == "\r\n" ? 1 : 0)
    }
}
