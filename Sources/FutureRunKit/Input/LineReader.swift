import Glibc

/// Reads records (lines, or NUL-terminated with `-0`) from a descriptor as they arrive, a chunk at a
/// time: a job can start before the input ends, and memory holds one chunk and one record.
/// A record longer than ``maximumLength`` is not kept: it comes back as `.tooLong`.
final class LineReader {
    enum Record: Equatable {
        case line([UInt8])
        case tooLong(Int)
    }

    /// The longest record kept: Linux refuses a longer single argument anyway (MAX_ARG_STRLEN).
    static let maximumLength = 128 * 1024

    private let descriptor: Int32
    private let separator: UInt8
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0
    private var pending: [UInt8] = []
    private var pendingLength = 0
    private var atEnd = false
    private(set) var readError: Int32?

    init(descriptor: Int32, nullSeparated: Bool) {
        self.descriptor = descriptor
        self.separator = nullSeparated ? 0 : 0x0A
    }

    /// The next record, blocking until it is complete or the input ends; `nil` at the end.
    func next() -> Record? {
        while true {
            if start < end {
                let slice = buffer[start..<end]
                if let at = slice.firstIndex(of: separator) {
                    append(buffer[start..<at])
                    start = at + 1
                    return takeRecord()
                }
                append(slice)
                start = end
            }
            if atEnd {
                return pendingLength > 0 ? takeRecord() : nil
            }
            fill()
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        pendingLength += bytes.count
        if pendingLength <= Self.maximumLength { pending.append(contentsOf: bytes) }
    }

    private func takeRecord() -> Record {
        defer {
            pending = []
            pendingLength = 0
        }
        return pendingLength > Self.maximumLength ? .tooLong(pendingLength) : .line(pending)
    }

    private func fill() {
        start = 0
        end = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                end = count
                return
            }
            if count < 0, errno == EINTR { continue }
            if count < 0 { readError = errno }
            atEnd = true
            return
        }
    }
}
