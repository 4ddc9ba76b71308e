import Glibc

/// Where `--pipe` may cut its input into blocks: after a record's end (`--recend`, a newline unless
/// `--recstart` is given) and before the next record's start (`--recstart`), both literal bytes or,
/// with `--regexp`, regular expressions. Both empty (`--recend ''`): anywhere. A pure value, tested
/// on byte strings.
///
/// A cut at `p` means `bytes[..<p]` ends with a record's end and `bytes[p...]` begins with a
/// record's start; it lies inside the bytes, with room for the start after it, so that a cut found
/// in what has been read stays one whatever is read next (for a literal boundary; a pattern is
/// matched against what has been read).
package struct RecordBoundary: Sendable, Equatable {
    package let end: [UInt8]
    package let start: [UInt8]
    /// `--regexp`: `end` and `start` are patterns.
    let isPattern: Bool

    /// GNU parallel's defaults: a newline ends a record unless `--recstart` alone is given.
    package init(end: [UInt8]?, start: [UInt8]?, isPattern: Bool = false) {
        self.end = end ?? (start == nil ? [0x0A] : [])
        self.start = start ?? []
        self.isPattern = isPattern
    }

    /// How many bytes past a cut decide it (a record's start): read that much past a block's size
    /// before cutting, so that where a block ends does not hang on how the input was read.
    var lookahead: Int { isPattern ? 4096 : start.count }

    /// Whether `pattern` compiles as a regular expression (`--regexp`), checked at the start.
    package static func compiles(_ pattern: [UInt8]) -> Bool {
        (try? Regex(String(decoding: pattern, as: UTF8.self))) != nil
    }

    /// The last cut in `bytes` at a position in `1...limit`.
    func lastCut(in bytes: UnsafeRawBufferPointer, atMost limit: Int) -> Int? {
        if end.isEmpty, start.isEmpty { return min(limit, bytes.count) > 0 ? min(limit, bytes.count) : nil }
        if isPattern { return patternCuts(in: bytes).last { $0 <= limit } }
        let joined = end + start
        // The last place the joined bytes may begin: the cut within `limit`, the start within the bytes.
        var position = min(limit - end.count, bytes.count - joined.count)
        // Backwards from there: a record is usually short, so the cut is found near the limit.
        let first = joined[0]
        while position >= 0 {
            if bytes[position] == first, position + end.count > 0, matches(joined, in: bytes, at: position) {
                return position + end.count
            }
            position -= 1
        }
        return nil
    }

    /// The first cut in `bytes` at a position of at least `from` (and at least 1).
    func firstCut(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        let from = max(1, from)
        if end.isEmpty, start.isEmpty { return from <= bytes.count ? from : nil }
        if isPattern { return patternCuts(in: bytes).first { $0 >= from } }
        let joined = end + start
        var position = max(0, from - end.count)
        while position + joined.count <= bytes.count {
            guard let found = memchr(bytes.baseAddress! + position, Int32(joined[0]), bytes.count - position) else {
                return nil
            }
            let offset = UnsafeRawPointer(found) - bytes.baseAddress!
            if matches(joined, in: bytes, at: offset), offset + end.count >= from { return offset + end.count }
            position = offset + 1
        }
        return nil
    }

    private func matches(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        offset + needle.count <= bytes.count && memcmp(bytes.baseAddress! + offset, needle, needle.count) == 0
    }

    /// Every cut, with `--regexp`: where a match of the end is followed by one of the start. The
    /// bytes are read as Latin-1, one scalar each, so that offsets are byte offsets. Compiled per
    /// call: Swift's `Regex` is not `Sendable` (and `--regexp` is slow in GNU parallel too).
    private func patternCuts(in bytes: UnsafeRawBufferPointer) -> [Int] {
        let endPattern = String(decoding: end, as: UTF8.self)
        let startPattern = String(decoding: start, as: UTF8.self)
        let pattern = "(?:\(endPattern))" + (start.isEmpty ? "" : "(?=(?:\(startPattern)))")
        guard let regex = try? Regex(pattern).matchingSemantics(.unicodeScalar) else { return [] }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: bytes.lazy.map { Unicode.Scalar($0) })
        let string = String(text)
        var cuts: [Int] = []
        // Counted on from the last match: one walk over the text in all.
        var (index, offset) = (string.startIndex, 0)
        for match in string.matches(of: regex) {
            offset += string.unicodeScalars.distance(from: index, to: match.range.upperBound)
            index = match.range.upperBound
            if offset > 0, offset < bytes.count || start.isEmpty { cuts.append(offset) }
        }
        return cuts
    }
}
