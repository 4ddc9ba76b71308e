/// `--plus`'s replacement strings that edit their argument, after bash's `${x…}` forms, as GNU
/// parallel defines them (its patterns are Perl regular expressions; here Swift's, which read the
/// same for everything but Perl's own extensions):
///
/// | string | becomes |
/// |---|---|
/// | `{:-str}` | `str` if the argument is empty |
/// | `{:N}` `{:N:M}` | without its first N bytes; M bytes from byte N |
/// | `{#re}` `{##re}` | without the shortest (longest) prefix `re` matches |
/// | `{%re}` `{%%re}` | without the shortest (longest) suffix `re` matches |
/// | `{/re/str}` `{//re/str}` | the first (every) match of `re` replaced by `str`, taken as it is |
/// | `{/#re/str}` `{/%re/str}` | a match at the start (end) replaced |
/// | `{^re}` `{^^re}` `{,re}` `{,,re}` | a match at the start (every match) in upper (lower) case |
///
/// Patterns are compiled when a job is made, not kept compiled: Swift's `Regex` is not `Sendable`.
package enum StringEdit: Sendable, Hashable {
    case defaultIfEmpty([UInt8])
    case bytes(from: Int, count: Int?)
    case removePrefix(pattern: String, longest: Bool)
    case removeSuffix(pattern: String, longest: Bool)
    case replace(pattern: String, with: String, Occurrence)
    case changeCase(pattern: String, upper: Bool, every: Bool)

    package enum Occurrence: Sendable, Hashable { case first, every, atStart, atEnd }

    /// The edit `inner` (a replacement string without its braces and list number) spells, if any.
    package init?(_ inner: Substring) {
        func pattern(after prefix: String) -> String? {
            guard inner.hasPrefix(prefix), inner.count > prefix.count else { return nil }
            return String(inner.dropFirst(prefix.count))
        }
        func replacement(after prefix: String, excluding: String = "") -> (String, String)? {
            guard let rest = pattern(after: prefix), let slash = rest.firstIndex(of: "/"), slash > rest.startIndex,
                !rest[..<slash].contains(where: excluding.contains)
            else { return nil }
            return (String(rest[..<slash]), String(rest[rest.index(after: slash)...]))
        }
        if let text = pattern(after: ":-") {
            self = .defaultIfEmpty(Array(text.utf8))
        } else if inner.first == ":" {
            let numbers = inner.dropFirst().split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard numbers.count <= 2, let from = numbers[0], from >= 0, numbers.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                return nil
            }
            self = .bytes(from: from, count: numbers.count == 2 ? numbers[1] : nil)
        } else if let found = pattern(after: "##") {
            self = .removePrefix(pattern: found, longest: true)
        } else if let found = pattern(after: "#"), !found.hasPrefix("#") {
            self = .removePrefix(pattern: found, longest: false)
        } else if let found = pattern(after: "%%") {
            self = .removeSuffix(pattern: found, longest: true)
        } else if let found = pattern(after: "%") {
            self = .removeSuffix(pattern: found, longest: false)
        } else if let (found, text) = replacement(after: "//") {
            self = .replace(pattern: found, with: text, .every)
        } else if let (found, text) = replacement(after: "/#") {
            self = .replace(pattern: found, with: text, .atStart)
        } else if let (found, text) = replacement(after: "/%") {
            self = .replace(pattern: found, with: text, .atEnd)
        } else if let (found, text) = replacement(after: "/", excluding: "#%") {
            self = .replace(pattern: found, with: text, .first)
        } else if let found = pattern(after: "^^") ?? pattern(after: ",,") {
            self = .changeCase(pattern: found, upper: inner.first == "^", every: true)
        } else if let found = pattern(after: "^") ?? pattern(after: ",") {
            self = .changeCase(pattern: found, upper: inner.first == "^", every: false)
        } else {
            return nil
        }
    }

    /// The pattern, if the edit has one; checked once when the template is read.
    package var pattern: String? {
        switch self {
        case .defaultIfEmpty, .bytes: nil
        case .removePrefix(let pattern, _), .removeSuffix(let pattern, _), .replace(let pattern, _, _),
            .changeCase(let pattern, _, _):
            pattern
        }
    }

    /// `argument` edited. A pattern that does not compile leaves it as it is (``Template`` refuses
    /// such a template at the start); an argument that is not UTF-8 is read as UTF-8 with
    /// replacement characters where a pattern applies.
    package func apply(to argument: [UInt8]) -> [UInt8] {
        switch self {
        case .defaultIfEmpty(let text): return argument.isEmpty ? text : argument
        case .bytes(let from, let count):
            let start = min(from, argument.count)
            return Array(argument[start..<min(argument.count, start + (count ?? argument.count))])
        default: break
        }
        let text = String(decoding: argument, as: UTF8.self)
        guard let edited = try? edit(text) else { return argument }
        return Array(edited.utf8)
    }

    private func edit(_ text: String) throws -> String {
        switch self {
        case .defaultIfEmpty, .bytes: return text
        case .removePrefix(let pattern, let longest):
            let regex = try Regex("^(?:\(longest ? pattern : Self.ungreedy(pattern)))")
            return try regex.prefixMatch(in: text).map { String(text[$0.range.upperBound...]) } ?? text
        case .removeSuffix(let pattern, let longest):
            if longest {
                let regex = try Regex("(?:\(pattern))$")
                return try regex.firstMatch(in: text).map { String(text[..<$0.range.lowerBound]) } ?? text
            }
            let regex = try Regex("^(.*)(?:\(Self.ungreedy(pattern)))$")
            return try regex.wholeMatch(in: text).flatMap { $0.output[1].substring.map(String.init) } ?? text
        case .replace(let pattern, let replacement, let occurrence):
            let anchored =
                switch occurrence {
                case .first, .every: pattern
                case .atStart: "^(?:\(pattern))"
                case .atEnd: "(?:\(pattern))$"
                }
            return text.replacing(
                try Regex(anchored), with: replacement, maxReplacements: occurrence == .first ? 1 : .max)
        case .changeCase(let pattern, let upper, let every):
            let regex = try Regex(every ? pattern : "^(?:\(pattern))")
            return text.replacing(regex, maxReplacements: every ? .max : 1) { match in
                String(decoding: Self.asciiCase(Array(text[match.range].utf8), upper: upper), as: UTF8.self)
            }
        }
    }

    /// Perl's `uc`/`lc` of a byte string, as GNU parallel calls them: ASCII letters only.
    private static func asciiCase(_ bytes: [UInt8], upper: Bool) -> [UInt8] {
        bytes.map { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z") where upper: byte - 32
            case UInt8(ascii: "A")...UInt8(ascii: "Z") where !upper: byte + 32
            default: byte
            }
        }
    }

    /// `pattern` with each quantifier outside a bracket made lazy, as GNU parallel's
    /// `make_regexp_ungreedy` does for `{#re}` and `{%re}`.
    static func ungreedy(_ pattern: String) -> String {
        var result = ""
        var inClass = false
        var escaped = false
        var quantified = false
        for character in pattern {
            if quantified && character != "?" { result.append("?") }
            quantified = false
            result.append(character)
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if inClass {
                inClass = character != "]"
            } else if character == "[" {
                inClass = true
            } else {
                quantified = "*}+".contains(character)
            }
        }
        return quantified ? result + "?" : result
    }

    /// Whether the pattern compiles: a template with one that does not is refused at the start.
    var isValid: Bool {
        guard let pattern else { return true }
        return (try? Regex(pattern)) != nil
    }
}
