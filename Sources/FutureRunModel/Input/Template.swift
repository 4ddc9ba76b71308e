/// A `--each` template, parsed once: literal bytes and GNU parallel replacement strings, each
/// replacement knowing how its argument is written so that it is always data (``ShellQuoting``).
///
/// | string | becomes |
/// |---|---|
/// | `{}` | the argument (with several, all of them, each quoted) |
/// | `{.}` | the argument without its extension |
/// | `{/}` | its base name |
/// | `{//}` | its directory (`.` if none) |
/// | `{/.}` | its base name without extension |
/// | `{#}` | the job number |
/// | `{%}` | the job slot |
/// | `{N}` `{N.}` `{N/}` `{N//}` `{N/.}` | the same, of the Nth list, column or argument |
/// | `{-N}` `{-N.}` … | the same, of the Nth from the end |
/// | `{= perl =}` `{=N perl =}` | GNU's grammar: the argument (or the Nth) as a Perl expression leaves `$_` (``PerlCoprocess``) |
package struct Template: Sendable, Equatable {
    package enum Transform: Sendable, Hashable {
        case whole, noExtension, baseName, directory, baseNameNoExtension
        /// `--plus`: `{..}` `{...}` (without the last N extensions, if it has N), `{/..}` `{/...}`
        /// (the same of the base name), `{+/}` (the directory, empty if none), `{+.}` `{+..}`
        /// `{+...}` (the last N extensions, empty if fewer): {} = {+/}/{/} = {..}.{+..}.
        case withoutExtensions(Int), baseNameWithoutExtensions(Int), directoryOrEmpty, extensions(Int)
        /// `--plus`: `{:N}`, `{#re}`, `{/re/str}`, … (``StringEdit``).
        case edit(StringEdit)
        /// `{= expression =}`, by the run's ``PerlCoprocess``.
        case perl(String)
    }

    /// How an argument is written at a replacement.
    package enum Placement: Sendable, Equatable {
        /// Only plain words come before it: a single-quoted word, as GNU parallel writes it.
        case word
        /// A reference to a variable assigned at the head of the job script.
        case reference(ShellQuoting.Site)
    }

    package enum Part: Sendable, Equatable {
        case literal([UInt8])
        /// Argument `list` (0-based, or from the end when negative: -1 is the last; `nil`: all of
        /// them, joined by spaces).
        case argument(list: Int?, Transform, Placement)
        case jobNumber
        case slot
    }

    package let parts: [Part]
    /// How arguments are appended to a template without replacement strings.
    package let appended: Placement
    /// Whether any replacement string appears (`{#}` and `{%}` too); if none, the arguments are appended.
    let hasReplacement: Bool
    /// Whether an argument is part of it (not only `{#}` or `{%}`).
    var usesArguments: Bool { parts.contains { if case .argument = $0 { true } else { false } } }
    /// Whether the job's slot is part of the command line (`{%}`).
    let usesSlot: Bool
    /// Whether every argument appears whole in the command line (`{}`, or appended), and whether
    /// the first does (`{1}` too): then a command built from an argument longer than a command may
    /// be is too long as well, and input need not keep more of such an argument.
    let holdsEveryArgumentWhole: Bool
    let holdsFirstArgumentWhole: Bool
    /// The highest `{N}` used (0 if none).
    let highestList: Int
    /// How many variables each argument of `{}` is assigned to (one per transform it is referenced with).
    let variablesPerArgument: Int
    /// `-X`: the runs of ``parts`` that make a word holding a replacement string, each repeated
    /// once per argument (empty otherwise).
    let repeatedWords: [Range<Int>]
    /// The run's perl, when a replacement is a Perl expression.
    package let perl: PerlCoprocess?

    /// Parses `bytes`; refuses a replacement that does not stand where its argument is data
    /// (``ReplacementSites``); writes each other one for the quotes around it (``QuoteTracker``).
    /// - Parameter plus: `--plus`: GNU parallel's extra path strings are replacement strings too.
    /// - Parameter repeatsWords: `-X`: each word holding a replacement string is repeated per argument.
    /// - Parameter perl: GNU's grammar: `{= … =}` is a Perl expression, compiled here.
    package init(_ bytes: [UInt8], plus: Bool = false, repeatsWords: Bool = false, perl: Bool = false) throws(UsageError) {
        if let refusal = GNUForms.templateRefusal(bytes, plus: plus, perl: perl) { throw refusal }
        var found: [(at: Int, length: Int, Replacement)] = []
        var index = 0
        var escaped = false
        var coprocess: PerlCoprocess?
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{"), !escaped, perl,
                let (list, expression, length) = Template.perlExpression(in: bytes, at: index)
            {
                let shared = if let coprocess { coprocess } else { try PerlCoprocess.shared() }
                if let why = shared.compile(expression) {
                    throw .invalidValue(
                        option: "{= perl expression =}", value: "{=\(expression)=}",
                        expected: "Perl that compiles (perl says: \(why.split(separator: "\n").first ?? ""))")
                }
                coprocess = shared
                found.append((index, length, .argument(list: list, .perl(expression))))
                index += length
                escaped = false
                continue
            }
            if bytes[index] == UInt8(ascii: "{"), !escaped,
                let (kind, length) = Template.replacement(in: bytes, at: index, plus: plus)
            {
                if case .argument(_, .edit(let edit)) = kind, !edit.isValid {
                    throw .invalidValue(
                        option: "--each", value: String(decoding: bytes[index..<(index + length)], as: UTF8.self),
                        expected: "a regular expression that compiles (as in Perl)")
                }
                found.append((index, length, kind))
                index += length
                escaped = false
                continue
            }
            escaped = !escaped && bytes[index] == UInt8(ascii: "\\")
            index += 1
        }
        let hasReplacement = !found.isEmpty
        self.perl = coprocess
        var masked = bytes
        // The template for ``ReplacementSites``: each argument a hole; `{#}` and `{%}`, numbers
        // futurerun writes, a digit.
        var holes: [UInt8] = []
        /// For each replacement string, its hole's number (none for `{#}` and `{%}`).
        var holeNumbers: [Int?] = []
        var next = 0
        for replacement in found {
            masked.replaceSubrange(
                replacement.at..<(replacement.at + replacement.length),
                with: repeatElement(UInt8(ascii: "_"), count: replacement.length))
            holes += bytes[next..<replacement.at]
            if case .argument = replacement.2 {
                holeNumbers.append(holeNumbers.count(where: { $0 != nil }))
                holes.append(ShellLexer.hole)
            } else {
                holeNumbers.append(nil)
                holes.append(UInt8(ascii: "1"))
            }
            next = replacement.at + replacement.length
        }
        holes += bytes[next...]
        // Arguments appended to a template without replacement strings stand as one more word.
        let sites = ReplacementSites(holes: hasReplacement ? holes : holes + [0x20, ShellLexer.hole])
        var tracker = QuoteTracker(arithmetic: ArithmeticRegions(masked))
        var onlyPlainWords = true
        var parts: [Part] = []
        /// The bytes of each part.
        var spans: [Range<Int>] = []
        var literalStart = 0
        /// How the argument of replacement string `number` (`found.count`: the appended arguments)
        /// at byte `index` is written.
        func placement(_ number: Int, at index: Int) throws(UsageError) -> Placement {
            let hole = number < found.count ? holeNumbers[number] ?? 0 : 0
            if let refusal = sites.refusal(hole) {
                let replacement = found.indices.contains(number) ? found[number] : nil
                throw .unsafeTemplate(
                    context: refusal.construct, hint: refusal.hint,
                    replacement: replacement.map { String(decoding: bytes[$0.at..<($0.at + $0.length)], as: UTF8.self) }
                        ?? "an appended argument",
                    offset: index + 1)
            }
            return onlyPlainWords && sites.allowsBareWord(hole) ? .word : .reference(try tracker.site(at: index).get())
        }
        for (number, replacement) in (found + [(bytes.count, 0, nil)] as [(at: Int, length: Int, Replacement?)]).enumerated() {
            for position in literalStart..<replacement.at {
                tracker.feed(bytes, at: position)
                onlyPlainWords = onlyPlainWords && Template.isPlainWordByte(bytes[position])
            }
            if replacement.at > literalStart {
                let literal = bytes[literalStart..<replacement.at]
                // -X: blanks apart from the rest, so that words are runs of parts.
                let pieces = repeatsWords ? Template.blankRuns(literal) : [literal]
                parts += pieces.map { .literal(Array($0)) }
                spans += pieces.map { $0.startIndex..<$0.endIndex }
            }
            literalStart = replacement.at + replacement.length
            if replacement.2 != nil { spans.append(replacement.at..<literalStart) }
            switch replacement.2 {
            case nil: break
            case .jobNumber: parts.append(.jobNumber)
            case .slot: parts.append(.slot)
            case .argument(let list, let transform):
                parts.append(.argument(list: list, transform, try placement(number, at: replacement.at)))
            }
        }
        self.parts = parts
        self.hasReplacement = hasReplacement
        if hasReplacement {
            appended = .word
        } else {
            appended = try placement(found.count, at: bytes.count)
            guard appended == .word || appended == .reference(.init(surroundings: .code)) else { throw .unplacedArguments }
        }
        usesSlot = parts.contains(.slot)
        repeatedWords = repeatsWords ? Template.wordsHoldingArguments(parts) : []
        variablesPerArgument =
            Set(
                parts.compactMap { part -> Transform? in
                    if case .argument(_, let transform, .reference) = part { transform } else { nil }
                }
            ).count
        if !repeatedWords.isEmpty {
            try Template.checkRepeatable(bytes, parts: parts, spans: spans, words: repeatedWords, plus: plus)
        }
        let arguments = parts.compactMap { part -> (list: Int?, transform: Transform)? in
            if case .argument(let list, let transform, _) = part { (list, transform) } else { nil }
        }
        holdsEveryArgumentWhole = !hasReplacement || arguments.contains { $0.list == nil && $0.transform == .whole }
        holdsFirstArgumentWhole = holdsEveryArgumentWhole || arguments.contains { $0.list == 0 && $0.transform == .whole }
        highestList = arguments.compactMap { $0.list.map { $0 + 1 } }.max() ?? 0
    }

    /// Bytes after which the shell still reads plain words: no quote, expansion, bracket, brace,
    /// redirection from a here-document, comment or escape can have opened anything.
    private static func isPlainWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: " \t\n_-./,:+@%^=~!*?;&|>[]".utf8.contains(byte)
        }
    }

    private enum Replacement { case argument(list: Int?, Transform), jobNumber, slot }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A }

    /// `bytes` cut where blanks start and end: blank runs and word pieces, in order.
    private static func blankRuns(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var runs: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        for index in bytes.indices.dropFirst() where isBlank(bytes[index]) != isBlank(bytes[index - 1]) {
            runs.append(bytes[start..<index])
            start = index
        }
        return runs + [bytes[start...]]
    }

    /// `-X`: a repeated word must leave the quotes as it found them, or its copies would put their
    /// arguments where the tracker did not place them. Checked by parsing the template with each
    /// word written twice: every copy's arguments must be placed as the word's own.
    private static func checkRepeatable(
        _ bytes: [UInt8], parts: [Part], spans: [Range<Int>], words: [Range<Int>], plus: Bool
    ) throws(UsageError) {
        var doubled = bytes
        var expected: [Placement] = []
        var next = 0
        for word in words {
            expected += placements(parts[next..<word.upperBound]) + placements(parts[word])
            next = word.upperBound
        }
        expected += placements(parts[next...])
        for word in words.reversed() {
            let span = spans[word.lowerBound].lowerBound..<spans[word.upperBound - 1].upperBound
            doubled.insert(contentsOf: [0x20] + bytes[span], at: span.upperBound)
        }
        guard let copy = try? Template(doubled, plus: plus), placements(copy.parts[...]) == expected else {
            throw .unsafeTemplate(
                context: "a word that -X repeats",
                hint: "its quotes do not close within the word; quote each word on its own, as in -X 'echo \"x{}\"'")
        }
    }

    /// How each argument among `parts` is written.
    private static func placements(_ parts: ArraySlice<Part>) -> [Placement] {
        parts.compactMap { if case .argument(_, _, let placement) = $0 { placement } else { nil } }
    }

    /// The runs of `parts` between blank literals that hold an argument.
    private static func wordsHoldingArguments(_ parts: [Part]) -> [Range<Int>] {
        var words: [Range<Int>] = []
        var start = 0
        for index in parts.indices + [parts.count] {
            let ends: Bool
            if index == parts.count {
                ends = true
            } else if case .literal(let bytes) = parts[index], let first = bytes.first {
                ends = isBlank(first)
            } else {
                ends = false
            }
            guard ends else { continue }
            let holdsArgument = parts[start..<index].contains { if case .argument = $0 { true } else { false } }
            if holdsArgument { words.append(start..<index) }
            start = index + 1
        }
        return words
    }

    /// Whether a replacement string (with `--plus`'s, as GNU parallel reads them) starts at `start`.
    static func isReplacement(in bytes: [UInt8], at start: Int) -> Bool {
        replacement(in: bytes, at: start, plus: true) != nil
    }

    /// The Perl expression `{= … =}` or `{=N … =}` starting at `start`: its list (`nil`: each
    /// argument), its text and its length, if there is one.
    private static func perlExpression(in bytes: [UInt8], at start: Int) -> (Int?, String, Int)? {
        guard start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "=") else { return nil }
        var open = start + 2
        let digits = bytes[open...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let list = digits.isEmpty ? nil : Int(String(decoding: digits, as: UTF8.self)).map { $0 - 1 }
        if list == -1 { return nil }
        open += digits.count
        var close = open
        while close + 1 < bytes.count {
            if bytes[close] == UInt8(ascii: "="), bytes[close + 1] == UInt8(ascii: "}") {
                return (list, String(decoding: bytes[open..<close], as: UTF8.self), close + 2 - start)
            }
            close += 1
        }
        return nil
    }

    /// The replacement string starting at `start`, and its length, if it is one.
    private static func replacement(in bytes: [UInt8], at start: Int, plus: Bool) -> (Replacement, Int)? {
        // --plus's edits hold patterns: a longer reach, but never across a brace or the shell's `${`.
        let edits = plus && (start == 0 || bytes[start - 1] != UInt8(ascii: "$"))
        let braces = bytes[(start + 1)...].prefix(edits ? 256 : 11)
        guard let close = braces.firstIndex(where: { $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "{") }),
            bytes[close] == UInt8(ascii: "}")
        else { return nil }
        var inner = String(decoding: bytes[(start + 1)..<close], as: UTF8.self)
        let length = close - start + 1
        if inner == "#" { return (.jobNumber, length) }
        if inner == "%" { return (.slot, length) }
        var list: Int?
        // `{-N}`: the Nth list from the end, stored as -N.
        let fromEnd = inner.hasPrefix("-")
        if fromEnd { inner.removeFirst() }
        let digits = inner.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty {
            guard let number = Int(digits), number >= 1 else { return nil }
            list = fromEnd ? -number : number - 1
            inner.removeFirst(digits.count)
        } else if fromEnd {
            return nil
        }
        let transform: Transform
        switch inner {
        case "": transform = .whole
        case ".": transform = .noExtension
        case "/": transform = .baseName
        case "//": transform = .directory
        case "/.": transform = .baseNameNoExtension
        case ".." where plus: transform = .withoutExtensions(2)
        case "..." where plus: transform = .withoutExtensions(3)
        case "/.." where plus: transform = .baseNameWithoutExtensions(2)
        case "/..." where plus: transform = .baseNameWithoutExtensions(3)
        case "+/" where plus: transform = .directoryOrEmpty
        case "+." where plus: transform = .extensions(1)
        case "+.." where plus: transform = .extensions(2)
        case "+..." where plus: transform = .extensions(3)
        default:
            guard edits, let edit = StringEdit(inner[...]) else { return nil }
            transform = .edit(edit)
        }
        return (.argument(list: list, transform), length)
    }
}
