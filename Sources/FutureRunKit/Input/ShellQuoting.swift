/// Quoting of data for `/bin/sh`, for each context a template can put it in (``Template/Context``).
enum ShellQuoting {
    private static let quote = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")

    /// Bytes that need no quoting in a plain word.
    private static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ","),
            UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "^"):
            true
        default: false
        }
    }

    /// `argument` as the shell must see it at `context` to read it back byte for byte. Throws when a
    /// here-document body cannot hold it (a line of it would end the body).
    static func quote(_ argument: [UInt8], in context: Template.Context) throws(Template.ExpansionError) -> [UInt8] {
        var quoted: [UInt8]
        switch context.quoting {
        case .plain:
            quoted = word(argument)
        case .singleQuoted:
            // Already inside '...': everything is literal except the quote itself.
            quoted = closingAroundQuotes(argument)
        case .doubleQuoted:
            // Inside "...": only $ ` " \ are special.
            quoted = escaping(argument, "$`\"\\")
        case .hereDocument(let document):
            // An unquoted delimiter's body expands $ ` \ (not "); a quoted one's is literal.
            quoted = document.expands ? escaping(argument, "$`\\") : argument
            if couldEnd(document, with: quoted) { throw .endsHereDocument(delimiter: document.delimiter) }
        }
        // Each backquote around it is unescaped once before its inside is parsed: escape once per level.
        for insideDouble in context.backquotes.reversed() {
            quoted = escaping(quoted, insideDouble ? "$`\\\"" : "$`\\")
        }
        return quoted
    }

    /// `argument` as one word of a `/bin/sh` command line, read back byte for byte: as it is when
    /// every byte is safe, else single-quoted.
    static func word(_ argument: [UInt8]) -> [UInt8] {
        if !argument.isEmpty, argument.allSatisfy(isSafe) { return argument }
        return [quote] + closingAroundQuotes(argument) + [quote]
    }

    /// `'` as `'\''` (close, an escaped quote, reopen).
    private static func closingAroundQuotes(_ argument: [UInt8]) -> [UInt8] {
        var quoted: [UInt8] = []
        quoted.reserveCapacity(argument.count)
        for byte in argument {
            if byte == quote { quoted += [quote, backslash, quote, quote] } else { quoted.append(byte) }
        }
        return quoted
    }

    private static func escaping(_ argument: [UInt8], _ special: String) -> [UInt8] {
        let special = Array(special.utf8)
        var quoted: [UInt8] = []
        quoted.reserveCapacity(argument.count)
        for byte in argument {
            if special.contains(byte) { quoted.append(backslash) }
            quoted.append(byte)
        }
        return quoted
    }

    /// Whether some line of the body could become the delimiter line with `text` in it: a middle
    /// line of `text` equal to the delimiter, its first line the delimiter's end, its last line the
    /// delimiter's start, or (one line) any part of it. Cautious: the text around the replacement
    /// is not looked at, so an argument that only might end the body is refused too.
    private static func couldEnd(_ document: QuoteTracker.HereDocument, with text: [UInt8]) -> Bool {
        let delimiter = document.delimiter
        var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            document.stripsTabs ? line.drop { $0 == 0x09 } : line
        }
        guard let first = lines.first else { return false }
        if lines.count == 1 {
            return !first.isEmpty && delimiter.count >= first.count
                && (0...(delimiter.count - first.count)).contains { delimiter[$0..<($0 + first.count)].elementsEqual(first) }
        }
        let last = lines.removeLast()
        lines.removeFirst()
        if lines.contains(where: { $0.elementsEqual(delimiter) }) { return true }
        return (!first.isEmpty && delimiter.ends(with: first)) || (!last.isEmpty && delimiter.starts(with: last))
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: ArraySlice<UInt8>) -> Bool {
        suffix.count <= count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
