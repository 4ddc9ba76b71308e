import Glibc

/// Reads records (lines, or NUL-terminated with `-0`) from a descriptor as they arrive, a chunk at a
/// time: a job can start before the input ends, and memory holds one chunk and one record.
/// Of a record longer than ``keep`` bytes only the first `keep` are kept; ``Record/length`` tells
/// the whole length, so the caller can tell it was cut.
package final class LineReader {
    package struct Record: Equatable {
        /// The record's bytes, or its first ``LineReader/keep`` bytes.
        package var bytes: [UInt8]
        /// Its whole length.
        package var length: Int
        var isCut: Bool { length > bytes.count }
    }

    private let descriptor: Int32
    private let separator: UInt8
    /// How many bytes of a record are kept.
    package let keep: Int
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0
    private var pending: [UInt8] = []
    private var pendingLength = 0
    private var atEnd = false
    package private(set) var readError: Int32?

    /// A record equal to this ends the input (xargs' and GNU parallel's `-E`).
    private let endMarker: [UInt8]?

    /// - Parameters:
    ///   - separator: the byte that ends a record (newline, NUL for `-0`, `-d`'s).
    ///   - endMarker: a record equal to it ends the input, unread past it.
    package init(descriptor: Int32, separator: UInt8, endMarker: [UInt8]? = nil, keep: Int) {
        self.descriptor = descriptor
        self.separator = separator
        self.endMarker = endMarker
        self.keep = keep
    }

    /// The next record, blocking until it is complete or the input ends; `nil` at the end (or at
    /// the end marker, and from then on).
    package func next() -> Record? {
        guard let record = nextRecord() else { return nil }
        if let endMarker, record.bytes == endMarker, !record.isCut {
            atEnd = true
            (start, end, pendingLength) = (0, 0, 0)
            pending = []
            return nil
        }
        return record
    }

    private func nextRecord() -> Record? {
        while true {
            if start < end {
                if let at = separatorIndex() {
                    append(buffer[start..<at])
                    start = at + 1
                    return takeRecord()
                }
                append(buffer[start..<end])
                start = end
            }
            if atEnd {
                return pendingLength > 0 ? takeRecord() : nil
            }
            fill()
        }
    }

    /// The next separator in `buffer[start..<end]` (memchr: the scan is most of the reading).
    private func separatorIndex() -> Int? {
        buffer.withUnsafeBytes { bytes in
            guard let found = memchr(bytes.baseAddress! + start, Int32(separator), end - start) else { return nil }
            return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        let room = keep - pending.count
        if room > 0 { pending.append(contentsOf: bytes.prefix(room)) }
        pendingLength += bytes.count
    }

    private func takeRecord() -> Record {
        defer {
            pending = []
            pendingLength = 0
        }
        return Record(bytes: pending, length: pendingLength)
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
