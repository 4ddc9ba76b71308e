/// The parts of a template where bash reads text as an arithmetic expression, so that
/// ``QuoteTracker`` reads `<<` there as a shift, not a here-document. (Whether a replacement may
/// stand in one is ``ReplacementSites``' decision: it may not.)
///
/// Found from the bytes alone, without trusting a reading of the quotes: a region runs from its
/// opener to the bracket that closes it, counting brackets naively, and to the end of the template
/// if anything between could hide a bracket from that count (a quote, backslash, comment, newline or
/// `case`).
///
/// | opener | region |
/// |---|---|
/// | `((`, `$((` | to the matching `))` |
/// | `$[` | to the matching `]` |
/// | `NAME[` (array subscript) | to the matching `]` |
/// | `${NAME:` not followed by `-` `=` `+` `?` (an offset) | to the matching `}` |
/// | `let`, `declare`/`typeset`/`local`/`export`/`readonly` with an `-i` flag | to the end |
/// | `[[`, when an arithmetic test (`-eq` `-ne` `-lt` `-le` `-gt` `-ge`) follows | to the end |
package struct ArithmeticRegions {
    private(set) var regions: [(range: Range<Int>, construct: String)] = []

    /// `bytes`: the template with every replacement string's bytes masked (as `_`), so that their
    /// braces count for nothing.
    package init(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if let (end, construct) = Self.region(in: bytes, at: index) {
                regions.append((index..<end, construct))
            }
            index += 1
        }
    }

    /// The construct around byte `index`, if it is in a region.
    func construct(containing index: Int) -> String? {
        regions.first { $0.range.contains(index) }?.construct
    }

    private static func region(in bytes: [UInt8], at index: Int) -> (end: Int, construct: String)? {
        func has(_ text: String, at position: Int) -> Bool {
            let pattern = Array(text.utf8)
            return position >= 0 && position + pattern.count <= bytes.count
                && bytes[position..<(position + pattern.count)].elementsEqual(pattern)
        }
        let byte = bytes[index]
        if has("((", at: index) {
            return (matching(bytes, from: index, open: "(", close: ")"), "((...)) or $((...))")
        }
        if has("$[", at: index) { return (matching(bytes, from: index + 1, open: "[", close: "]"), "$[...]") }
        if byte == UInt8(ascii: "["), index > 0, isNameByte(bytes[index - 1]) {
            return (matching(bytes, from: index, open: "[", close: "]"), "an array subscript")
        }
        if has("${", at: index) {
            var position = index + 2
            while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
            if position > index + 2, position + 1 < bytes.count, bytes[position] == UInt8(ascii: ":"),
                !"-=+?".utf8.contains(bytes[position + 1])
            {
                return (matching(bytes, from: index + 1, open: "{", close: "}"), "a ${NAME:OFFSET} expansion")
            }
        }
        guard index == 0 || startsCommandWord(after: bytes[index - 1]) else { return nil }
        if hasWord("let", in: bytes, at: index) { return (bytes.count, "let") }
        for declaring in ["declare", "typeset", "local", "export", "readonly"] where hasWord(declaring, in: bytes, at: index) {
            if flagsDeclareInteger(bytes, after: index + declaring.utf8.count) { return (bytes.count, "\(declaring) -i") }
        }
        if has("[[", at: index), followedByArithmeticTest(bytes, after: index + 2) {
            return (bytes.count, "[[ ... -eq ... ]]")
        }
        return nil
    }

    /// The index after the bracket that closes the one at `start`, or the end of `bytes` if a byte
    /// on the way could hide a bracket from the count.
    private static func matching(_ bytes: [UInt8], from start: Int, open: Unicode.Scalar, close: Unicode.Scalar) -> Int {
        let open = UInt8(ascii: open)
        let close = UInt8(ascii: close)
        var depth = 0
        var position = start
        while position < bytes.count {
            switch bytes[position] {
            case open: depth += 1
            case close:
                depth -= 1
                if depth == 0 { return position + 1 }
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "\\"), UInt8(ascii: "#"), 0x0A:
                return bytes.count
            default:
                if hasWord("case", in: bytes, at: position) { return bytes.count }
            }
            position += 1
        }
        return bytes.count
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Whether a word that follows `byte` may be a command's first word (or, cautiously, any word).
    private static func startsCommandWord(after byte: UInt8) -> Bool {
        isBlank(byte) || ";&|(){}\n!`".utf8.contains(byte)
    }

    /// `word` at `index`, ended by a blank, newline or the end.
    private static func hasWord(_ word: String, in bytes: [UInt8], at index: Int) -> Bool {
        let pattern = Array(word.utf8)
        let end = index + pattern.count
        guard end <= bytes.count, bytes[index..<end].elementsEqual(pattern) else { return false }
        return end == bytes.count || isBlank(bytes[end]) || bytes[end] == 0x0A
    }

    /// Whether a flag word after `position` (`-i`, `-ri`, …) declares an integer variable.
    private static func flagsDeclareInteger(_ bytes: [UInt8], after position: Int) -> Bool {
        var position = position
        while true {
            while position < bytes.count, isBlank(bytes[position]) { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "-") else { return false }
            let start = position
            while position < bytes.count, !isBlank(bytes[position]), bytes[position] != 0x0A { position += 1 }
            if bytes[start..<position].contains(UInt8(ascii: "i")) { return true }
        }
    }

    private static func followedByArithmeticTest(_ bytes: [UInt8], after position: Int) -> Bool {
        let words = bytes[position...].split { isBlank($0) || $0 == 0x0A }
        return words.contains { word in ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"].contains { word.elementsEqual($0.utf8) } }
    }
}
