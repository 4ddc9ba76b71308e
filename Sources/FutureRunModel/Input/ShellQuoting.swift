/// How an argument is written into a job script for `/bin/sh` (``Template``).
///
/// The model: an argument reaches the shell only as a single-quoted word or as a reference to a
/// variable that the script's first line assigns from a single-quoted word. A single-quoted word is
/// data wherever the shell reads plain words; a reference (`"${_fr1}"`) is data wherever the shell
/// reads it at all, because an expansion's result is never parsed again. So a replacement preceded
/// only by plain words becomes a quoted word, and every other one a reference, written for the
/// quotes the template seems to put around it: if that guess is wrong, the text is wrong, never code.
package enum ShellQuoting {
    private static let quote = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")

    /// Where a reference sits, as far as the template's quoting can be read.
    package enum Surroundings: Sendable, Equatable {
        /// Shell code: outside quotes, inside `$(...)`, backquotes, a comment.
        case code
        /// Inside `"..."` or the body of a here-document whose delimiter is unquoted.
        case doubleQuotes
        /// Inside `'...'`.
        case singleQuotes
    }

    /// Where a reference sits: its surroundings, and the backquotes around it, outermost first,
    /// each marked if it opened inside `"..."`.
    package struct Site: Sendable, Equatable {
        var surroundings: Surroundings
        var backquotes: [Bool] = []
    }

    /// Bytes that need no quoting in a plain word.
    package static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ","),
            UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "^"):
            true
        default: false
        }
    }

    /// `argument` as one word of a `/bin/sh` command line, read back byte for byte: as it is when
    /// every byte is safe, else single-quoted (each `'` as `'\''`).
    package static func word(_ argument: [UInt8]) -> [UInt8] {
        if !argument.isEmpty, argument.allSatisfy(isSafe) { return argument }
        var quoted: [UInt8] = [quote]
        quoted.reserveCapacity(argument.count + 2)
        for byte in argument {
            if byte == quote { quoted += [quote, backslash, quote, quote] } else { quoted.append(byte) }
        }
        quoted.append(quote)
        return quoted
    }

    /// The name of the variable that holds a job's `number`th distinct value: `_fr1`, `_fr2`, …
    package static func variable(_ number: Int) -> [UInt8] { Array("_fr\(number)".utf8) }

    /// A reference to `variable` that expands to its value, unsplit, at `site`. The text is fixed
    /// ASCII with no quote it leaves open, so whatever the real surroundings are, the shell reads
    /// either the value or these bytes as text.
    static func reference(to variable: [UInt8], at site: Site) -> [UInt8] {
        let expansion = Array("${".utf8) + variable + [UInt8(ascii: "}")]
        var reference: [UInt8]
        switch site.surroundings {
        case .code: reference = [UInt8(ascii: "\"")] + expansion + [UInt8(ascii: "\"")]
        case .doubleQuotes: reference = expansion
        case .singleQuotes: reference = Array("'\"".utf8) + expansion + Array("\"'".utf8)
        }
        // Each backquote unescapes its inside once before parsing it (`\"` too, inside "..."):
        // escape once per level, innermost first.
        for insideDouble in site.backquotes.reversed() {
            var escaped: [UInt8] = []
            for byte in reference {
                if byte == backslash || byte == UInt8(ascii: "`") || (insideDouble && byte == UInt8(ascii: "\"")) {
                    escaped.append(backslash)
                }
                escaped.append(byte)
            }
            reference = escaped
        }
        return reference
    }
}
