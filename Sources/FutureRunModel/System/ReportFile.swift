import Glibc

/// A report's output file. Writes are complete or remembered as the report's error: a report never
/// loses a record silently.
package final class ReportFile {
    package let path: String
    package let stream: StandardStream
    package private(set) var error: String?

    /// Opens `path` for writing (`append`: at its end). A symbolic link is followed, as the user
    /// named it (`--joblog /dev/stderr` works); `--results` refuses them inside its folder.
    package init(path: String, append: Bool) throws(UsageError) {
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let descriptor = Glibc.open(path.systemPath, flags, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        self.stream = StandardStream(descriptor: descriptor)
    }

    package init(descriptor: Int32, path: String) {
        self.path = path
        self.stream = StandardStream(descriptor: descriptor)
    }

    deinit { close(stream.descriptor) }

    /// Whether the file was empty when opened (a joblog appended to gets no second header).
    package var isEmpty: Bool {
        var info = stat()
        return fstat(stream.descriptor, &info) == 0 && info.st_size == 0
    }

    /// Whether the file's last byte is a line end, or it is empty: a record appended to a file cut
    /// mid-line (a run killed while writing) must start a line of its own.
    package var endsAtLineStart: Bool {
        var info = stat()
        guard fstat(stream.descriptor, &info) == 0, info.st_size > 0 else { return true }
        var last: UInt8 = 0
        return pread(stream.descriptor, &last, 1, off_t(info.st_size - 1)) == 1 && last == 0x0A
    }

    package func write(_ text: String) { write(Array(text.utf8)) }

    package func write(_ bytes: [UInt8]) {
        guard error == nil else { return }
        do { try stream.write(bytes) } catch { record(error) }
    }

    /// Writes `bytes` at `offset`, then cuts the file there plus their length.
    package func overwrite(_ bytes: [UInt8], at offset: Int) {
        guard error == nil else { return }
        guard lseek(stream.descriptor, off_t(offset), SEEK_SET) >= 0 else { return record(.failed(descriptor: -1, errno: errno)) }
        write(bytes)
        if error == nil, ftruncate(stream.descriptor, off_t(offset + bytes.count)) != 0 {
            record(.failed(descriptor: -1, errno: errno))
        }
    }

    /// Writes `bytes` at `offset` and cuts the file after them, as ``overwrite(_:at:)``; if that
    /// fails (a full disk), the file is cut back to `offset` and `restoring` written there again, so
    /// that it holds what it held before the write (`restoring`: what followed `offset`). The
    /// failure stays the report's error.
    package func overwrite(_ bytes: [UInt8], at offset: Int, restoring: [UInt8]) {
        overwrite(bytes, at: offset)
        guard error != nil else { return }
        let descriptor = stream.descriptor
        _ = ftruncate(descriptor, off_t(offset))
        _ = restoring.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
    }

    /// Puts `bytes` in the file `path` names, whole. A regular file (or one a symbolic link
    /// names: the link stays) is replaced at once: written to a temporary name beside it, then
    /// renamed over it, so a crash or a full disk leaves the earlier file whole. Anything else —
    /// a FIFO, a device, futurerun's own stdout or stderr (`/dev/stdout`), a link to nothing yet —
    /// is written through in place, never replaced. Returns the error, if any.
    package static func replace(_ path: String, with bytes: [UInt8]) -> String? {
        switch Destination(path) {
        case .standardStream(let descriptor):
            return write(bytes, to: dup(descriptor), path: path)
        case .inPlace(let create):
            return write(
                bytes, to: Glibc.open(path.systemPath, O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0o644), path: path
            )
        case .regularFile(let resolved):
            return replaceRegularFile(resolved, with: bytes, shownAs: path)
        }
    }

    /// What writing a whole report to a path means.
    package enum Destination: Equatable {
        /// futurerun's own stdout (1) or stderr (2): written there, after what is already written.
        case standardStream(Int32)
        /// A FIFO, device or socket, or a link to nothing yet (`create`): opened and written.
        case inPlace(create: Bool)
        /// A regular file, at this path (a link resolved), or nothing yet: replaced whole.
        case regularFile(String)

        package init(_ path: String) {
            var info = stat()
            guard stat(path.systemPath, &info) == 0 else {
                var link = stat()
                self = lstat(path.systemPath, &link) == 0 ? .inPlace(create: true) : .regularFile(path)
                return
            }
            for descriptor: Int32 in [1, 2] {
                var own = stat()
                if fstat(descriptor, &own) == 0, own.st_dev == info.st_dev, own.st_ino == info.st_ino {
                    self = .standardStream(descriptor)
                    return
                }
            }
            guard info.st_mode & S_IFMT == S_IFREG else {
                self = .inPlace(create: false)
                return
            }
            guard let resolved = realpath(path.systemPath, nil) else {
                self = .regularFile(path)
                return
            }
            defer { free(resolved) }
            self = .regularFile(String(cString: resolved))
        }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) -> String? {
        guard descriptor >= 0 else { return "cannot write '\(path)': \(String(cString: strerror(errno)))" }
        let file = ReportFile(descriptor: descriptor, path: path)
        file.write(bytes)
        return file.error
    }

    private static func replaceRegularFile(_ path: String, with bytes: [UInt8], shownAs shown: String) -> String? {
        let temporary =
            FileIdentity.directory(of: path) + "/.futurerun-\(getpid())-"
            + (path.split(separator: "/").last.map(String.init) ?? "report")
        let descriptor = Glibc.open(temporary.systemPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return "cannot write '\(shown)': \(String(cString: strerror(errno)))" }
        if let error = write(bytes, to: descriptor, path: shown) {
            unlink(temporary.systemPath)
            return error
        }
        guard rename(temporary.systemPath, path.systemPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.systemPath)
            return "cannot write '\(shown)': \(reason)"
        }
        return nil
    }

    private func record(_ failure: OutputError) {
        switch failure {
        case .brokenPipe: error = "cannot write '\(path)': broken pipe"
        case .failed(_, let code): error = "cannot write '\(path)': \(String(cString: strerror(code)))"
        case .noSpillSpace: error = "cannot write '\(path)': \(failure.message)"
        }
    }
}

/// JSON string literals, written by hand: the reports need nothing else of JSON, and importing
/// Foundation's encoder would cost every run its start-up time.
package enum JSONText {
    /// `text` as a JSON string literal. `asGNU`: as GNU parallel writes its `--results` JSON,
    /// every control character as `\u00XX` (`\n` too) and DEL as it is.
    package static func string(_ text: String, asGNU: Bool = false) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n" where !asGNU: out += "\\n"
            case "\r" where !asGNU: out += "\\r"
            case "\t" where !asGNU: out += "\\t"
            case let control where control.value < 0x20 || (control.value == 0x7F && !asGNU):
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    package static func number(_ value: Double) -> String {
        String(format3: value)
    }
}

extension String {
    /// `value` with three decimals (`12.345`), without Foundation's `String(format:)`.
    package init(format3 value: Double) {
        let thousandths = Int64((value * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = abs(thousandths)
        let fraction = magnitude % 1000
        self =
            "\(sign)\(magnitude / 1000)." + String(repeating: "0", count: fraction < 10 ? 2 : fraction < 100 ? 1 : 0)
            + "\(fraction)"
    }
}

/// A file as the file system knows it (device and inode); `nil` where nothing exists yet.
package struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    package init?(_ path: String) {
        var info = stat()
        guard stat(path.systemPath, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The directory `path` is in (`.` for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` without `.` components and repeated slashes: `./a//b` and `a/b` are one path.
    package static func normalized(_ path: String) -> String {
        let parts = path.split(separator: "/").filter { $0 != "." }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }
}
