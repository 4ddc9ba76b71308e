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
public struct Template: Sendable, Equatable {
    enum Transform: Sendable, Equatable {
        case whole, noExtension, baseName, directory, baseNameNoExtension
        /// `--plus`: `{..}` `{...}` (without the last N extensions, if it has N), `{/..}` `{/...}`
        /// (the same of the base name), `{+/}` (the directory, empty if none), `{+.}` `{+..}`
        /// `{+...}` (the last N extensions, empty if fewer): {} = {+/}/{/} = {..}.{+..}.
        case withoutExtensions(Int), baseNameWithoutExtensions(Int), directoryOrEmpty, extensions(Int)
    }

    /// How an argument is written at a replacement.
    enum Placement: Sendable, Equatable {
        /// Only plain words come before it: a single-quoted word, as GNU parallel writes it.
        case word
        /// A reference to a variable assigned at the head of the job script.
        case reference(ShellQuoting.Site)
    }

    enum Part: Sendable, Equatable {
        case literal([UInt8])
        /// Argument `list` (0-based, or from the end when negative: -1 is the last; `nil`: all of
        /// them, joined by spaces).
        case argument(list: Int?, Transform, Placement)
        case jobNumber
        case slot
    }

    let parts: [Part]
    /// How arguments are appended to a template without replacement strings.
    let appended: Placement
    /// Whether any replacement string appears (`{#}` and `{%}` too); if none, the arguments are appended.
    let hasReplacement: Bool
    /// Whether the job's slot is part of the command line (`{%}`).
    let usesSlot: Bool
    /// Whether every argument appears whole in the command line (`{}`, or appended), and whether
    /// the first does (`{1}` too): then a command built from an argument longer than a command may
    /// be is too long as well, and input need not keep more of such an argument.
    let holdsEveryArgumentWhole: Bool
    let holdsFirstArgumentWhole: Bool
    /// The highest `{N}` used (0 if none).
    let highestList: Int

    /// Parses `bytes`; refuses a replacement where bash evaluates it (``ArithmeticRegions``) or where
    /// no reference expands (``QuoteTracker``).
    /// - Parameter plus: `--plus`: GNU parallel's extra path strings are replacement strings too.
    init(_ bytes: [UInt8], plus: Bool = false) throws(UsageError) {
        if let refusal = GNUForms.templateRefusal(bytes, plus: plus) { throw refusal }
        var found: [(at: Int, length: Int, Replacement)] = []
        var index = 0
        var escaped = false
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{"), !escaped,
                let (kind, length) = Template.replacement(in: bytes, at: index, plus: plus)
            {
                found.append((index, length, kind))
                index += length
                escaped = false
                continue
            }
            escaped = !escaped && bytes[index] == UInt8(ascii: "\\")
            index += 1
        }
        var masked = bytes
        for replacement in found {
            masked.replaceSubrange(
                replacement.at..<(replacement.at + replacement.length),
                with: repeatElement(UInt8(ascii: "_"), count: replacement.length))
        }
        let arithmetic = ArithmeticRegions(masked)
        var tracker = QuoteTracker(arithmetic: arithmetic)
        var onlyPlainWords = true
        var parts: [Part] = []
        var literalStart = 0
        func placement(at index: Int) throws(UsageError) -> Placement {
            if let construct = arithmetic.construct(containing: index) {
                throw .unsafeTemplate(
                    context: construct, hint: "bash evaluates an argument there as an expression, which can run code")
            }
            return onlyPlainWords ? .word : .reference(try tracker.site(at: index).get())
        }
        for replacement in found + [(bytes.count, 0, nil)] as [(at: Int, length: Int, Replacement?)] {
            for position in literalStart..<replacement.at {
                tracker.feed(bytes, at: position)
                onlyPlainWords = onlyPlainWords && Template.isPlainWordByte(bytes[position])
            }
            if replacement.at > literalStart { parts.append(.literal(Array(bytes[literalStart..<replacement.at]))) }
            literalStart = replacement.at + replacement.length
            switch replacement.2 {
            case nil: break
            case .jobNumber: parts.append(.jobNumber)
            case .slot: parts.append(.slot)
            case .argument(let list, let transform):
                parts.append(.argument(list: list, transform, try placement(at: replacement.at)))
            }
        }
        self.parts = parts
        hasReplacement = !found.isEmpty
        if hasReplacement {
            appended = .word
        } else {
            appended = try placement(at: bytes.count)
            guard appended == .word || appended == .reference(.init(surroundings: .code)) else { throw .unplacedArguments }
        }
        usesSlot = parts.contains(.slot)
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

    /// The replacement string starting at `start`, and its length, if it is one.
    private static func replacement(in bytes: [UInt8], at start: Int, plus: Bool) -> (Replacement, Int)? {
        guard let close = bytes[start...].prefix(12).firstIndex(of: UInt8(ascii: "}")) else { return nil }
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
        default: return nil
        }
        return (.argument(list: list, transform), length)
    }

    /// The command line for one job: `arguments` (one per list, column or `-n` argument) put in as
    /// quoted words, or as references to variables that a head of assignments sets.
    func expand(arguments: [[UInt8]], jobNumber: Int, slot: Int) -> [UInt8] {
        var head: [UInt8] = []
        var line: [UInt8] = []
        /// The variables assigned so far, by argument and transform.
        var variables: [(argument: Int, transform: Transform)] = []
        func put(_ list: Int, _ transform: Transform, _ placement: Placement) {
            let (argument, bytes) = Template.argument(list, of: arguments)
            let value = Template.apply(transform, to: bytes)
            guard case .reference(let site) = placement else {
                line += ShellQuoting.word(value)
                return
            }
            let number: Int
            if let known = variables.firstIndex(where: { $0 == (argument, transform) }) {
                number = known + 1
            } else {
                variables.append((argument, transform))
                number = variables.count
                head +=
                    (number > 1 ? [0x20] : []) + ShellQuoting.variable(number) + [UInt8(ascii: "=")] + ShellQuoting.word(value)
            }
            line += ShellQuoting.reference(to: ShellQuoting.variable(number), at: site)
        }
        for part in parts {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber: line += Array(String(jobNumber).utf8)
            case .slot: line += Array(String(slot).utf8)
            case .argument(let list?, let transform, let placement): put(list, transform, placement)
            case .argument(nil, let transform, let placement):
                for argument in arguments.indices {
                    if argument > 0 { line.append(0x20) }
                    put(argument, transform, placement)
                }
            }
        }
        if !hasReplacement {
            for argument in arguments.indices {
                line.append(0x20)
                put(argument, .whole, appended)
            }
        }
        return head.isEmpty ? line : head + Array("; ".utf8) + line
    }

    /// The template with the replacement strings put in as they are, unquoted: for a job header
    /// (`@build-{}`), whose words are names to check, not shell code.
    /// `joiner` separates the arguments of `{}`: a comma in a header (names hold no blanks), a
    /// space in a `--tagstring`.
    func expandUnquoted(arguments: [[UInt8]], jobNumber: Int, joiner: UInt8 = 0x2C) -> [UInt8] {
        var line: [UInt8] = []
        for part in parts {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber, .slot: line += Array(String(jobNumber).utf8)
            case .argument(let list, let transform, _):
                if let list {
                    line += Template.apply(transform, to: Template.argument(list, of: arguments).bytes)
                } else {
                    line += Array(arguments.map { Template.apply(transform, to: $0) }.joined(separator: [joiner]))
                }
            }
        }
        return line
    }

    /// Argument `list` (from the end when negative) and its position; no bytes if there is none.
    private static func argument(_ list: Int, of arguments: [[UInt8]]) -> (index: Int, bytes: [UInt8]) {
        let index = list < 0 ? arguments.count + list : list
        return (index, arguments.indices.contains(index) ? arguments[index] : [])
    }

    static func apply(_ transform: Transform, to argument: [UInt8]) -> [UInt8] {
        let slash = argument.lastIndex(of: UInt8(ascii: "/"))
        let baseStart = slash.map { $0 + 1 } ?? 0
        func dropExtension(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > bytes.startIndex else { return Array(bytes) }
            return Array(bytes[..<dot])
        }
        switch transform {
        case .whole: return argument
        case .baseName: return Array(argument[baseStart...])
        case .directory:
            guard let slash else { return [UInt8(ascii: ".")] }
            return slash == 0 ? [UInt8(ascii: "/")] : Array(argument[..<slash])
        case .noExtension: return Array(argument[..<baseStart]) + dropExtension(argument[baseStart...])
        case .baseNameNoExtension: return dropExtension(argument[baseStart...])
        case .withoutExtensions(let count):
            return Array(argument[..<baseStart]) + splitExtensions(argument[baseStart...], count).stem
        case .baseNameWithoutExtensions(let count): return splitExtensions(argument[baseStart...], count).stem
        case .directoryOrEmpty:
            // As GNU parallel: everything before the last slash, so `/r` has an empty directory.
            guard let slash else { return [] }
            return Array(argument[..<slash])
        case .extensions(let count): return splitExtensions(argument[baseStart...], count).extensions
        }
    }

    /// A base name's last `count` extensions and what is before them, if it has that many (and
    /// something before them); else the name whole and no extensions.
    private static func splitExtensions(_ base: ArraySlice<UInt8>, _ count: Int) -> (stem: [UInt8], extensions: [UInt8]) {
        let parts = base.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count > count, !parts[0].isEmpty else { return (Array(base), []) }
        let stem = parts.dropLast(count).joined(separator: [UInt8(ascii: ".")])
        let extensions = parts.suffix(count).joined(separator: [UInt8(ascii: ".")])
        return (Array(stem), Array(extensions))
    }
}
