import Glibc

/// A report's output file. Writes are complete or remembered as the report's error: a report never
/// loses a record silently.
final class ReportFile {
    let path: String
    let stream: StandardStream
    private(set) var error: String?

    /// Opens `path` for writing (`append`: at its end). A symbolic link is followed, as the user
    /// named it (`--joblog /dev/stderr` works); `--results` refuses them inside its folder.
    init(path: String, append: Bool) throws(UsageError) {
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let descriptor = Glibc.open(path, flags, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        self.stream = StandardStream(descriptor: descriptor)
    }

    init(descriptor: Int32, path: String) {
        self.path = path
        self.stream = StandardStream(descriptor: descriptor)
    }

    deinit { close(stream.descriptor) }

    /// Whether the file was empty when opened (a joblog appended to gets no second header).
    var isEmpty: Bool {
        var info = stat()
        return fstat(stream.descriptor, &info) == 0 && info.st_size == 0
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) {
        guard error == nil else { return }
        do { try stream.write(bytes) } catch { record(error) }
    }

    /// Writes `bytes` at `offset`, then cuts the file there plus their length.
    func overwrite(_ bytes: [UInt8], at offset: Int) {
        guard error == nil else { return }
        guard lseek(stream.descriptor, off_t(offset), SEEK_SET) >= 0 else { return record(.failed(descriptor: -1, errno: errno)) }
        write(bytes)
        if error == nil, ftruncate(stream.descriptor, off_t(offset + bytes.count)) != 0 {
            record(.failed(descriptor: -1, errno: errno))
        }
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
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20 || control.value == 0x7F:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func number(_ value: Double) -> String {
        String(format3: value)
    }
}

extension String {
    /// `value` with three decimals (`12.345`), without Foundation's `String(format:)`.
    init(format3 value: Double) {
        let thousandths = Int64((value * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = abs(thousandths)
        let fraction = magnitude % 1000
        self =
            "\(sign)\(magnitude / 1000)." + String(repeating: "0", count: fraction < 10 ? 2 : fraction < 100 ? 1 : 0)
            + "\(fraction)"
    }
}
