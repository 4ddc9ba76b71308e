/// A `--each` template, parsed once: literal bytes and GNU parallel replacement strings, each
/// replacement knowing the shell quoting context it sits in (``QuoteTracker``), so that a
/// substituted argument is always data and never shell code.
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
public struct Template: Sendable, Equatable {
    enum Transform: Sendable, Equatable { case whole, noExtension, baseName, directory, baseNameNoExtension }

    /// How the shell reads the text put at a replacement.
    struct Context: Sendable, Equatable {
        enum Quoting: Sendable, Equatable {
            /// Outside quotes (also directly inside `$(...)` and backquotes).
            case plain
            case doubleQuoted
            case singleQuoted
            case hereDocument(QuoteTracker.HereDocument)
        }

        var quoting: Quoting
        /// The backquotes around it, outermost first: whether each opened inside `"..."`.
        var backquotes: [Bool] = []
    }

    enum Part: Sendable, Equatable {
        case literal([UInt8])
        /// Argument `list` (0-based; `nil`: all of them, joined by spaces).
        case argument(list: Int?, Transform, Context)
        case jobNumber
        case slot
    }

    /// Why a job's arguments cannot go into the template.
    enum ExpansionError: Error, Equatable {
        case endsHereDocument(delimiter: [UInt8])

        var message: String {
            switch self {
            case .endsHereDocument(let delimiter):
                "the argument would end the here-document (its delimiter is "
                    + String(decoding: delimiter, as: UTF8.self) + "): pick a delimiter the arguments cannot hold"
            }
        }
    }

    let parts: [Part]
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

    /// Parses `bytes`; refuses a replacement in a context where no quoting keeps it data.
    init(_ bytes: [UInt8]) throws(UsageError) {
        var parts: [Part] = []
        var literal: [UInt8] = []
        var tracker = QuoteTracker()
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{"), !tracker.isEscaped,
                let (kind, length) = Template.replacement(in: bytes, at: index)
            {
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = []
                switch kind {
                case .jobNumber: parts.append(.jobNumber)
                case .slot: parts.append(.slot)
                case .argument(let list, let transform):
                    parts.append(.argument(list: list, transform, try tracker.context(at: index).get()))
                }
                index += length
                continue
            }
            tracker.feed(bytes, at: index)
            literal.append(bytes[index])
            index += 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        hasReplacement = parts.contains { if case .literal = $0 { false } else { true } }
        usesSlot = parts.contains(.slot)
        let arguments = parts.compactMap { part -> (list: Int?, transform: Transform)? in
            if case .argument(let list, let transform, _) = part { (list, transform) } else { nil }
        }
        holdsEveryArgumentWhole = !hasReplacement || arguments.contains { $0.list == nil && $0.transform == .whole }
        holdsFirstArgumentWhole = holdsEveryArgumentWhole || arguments.contains { $0.list == 0 && $0.transform == .whole }
        highestList = arguments.compactMap { $0.list.map { $0 + 1 } }.max() ?? 0
    }

    private enum Replacement { case argument(list: Int?, Transform), jobNumber, slot }

    /// The replacement string starting at `start`, and its length, if it is one.
    private static func replacement(in bytes: [UInt8], at start: Int) -> (Replacement, Int)? {
        guard let close = bytes[start...].prefix(12).firstIndex(of: UInt8(ascii: "}")) else { return nil }
        var inner = String(decoding: bytes[(start + 1)..<close], as: UTF8.self)
        let length = close - start + 1
        if inner == "#" { return (.jobNumber, length) }
        if inner == "%" { return (.slot, length) }
        var list: Int?
        let digits = inner.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty {
            guard let number = Int(digits), number >= 1 else { return nil }
            list = number - 1
            inner.removeFirst(digits.count)
        }
        let transform: Transform
        switch inner {
        case "": transform = .whole
        case ".": transform = .noExtension
        case "/": transform = .baseName
        case "//": transform = .directory
        case "/.": transform = .baseNameNoExtension
        default: return nil
        }
        return (.argument(list: list, transform), length)
    }

    /// The command line for one job: `arguments` (one per list, column or `-n` argument)
    /// substituted and quoted for where each lands.
    func expand(arguments: [[UInt8]], jobNumber: Int, slot: Int) throws(ExpansionError) -> [UInt8] {
        var line: [UInt8] = []
        for part in parts {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber: line += Array(String(jobNumber).utf8)
            case .slot: line += Array(String(slot).utf8)
            case .argument(let list, let transform, let context):
                if let list {
                    let argument = list < arguments.count ? arguments[list] : []
                    line += try ShellQuoting.quote(Template.apply(transform, to: argument), in: context)
                } else {
                    for (position, argument) in arguments.enumerated() {
                        if position > 0 { line.append(0x20) }
                        line += try ShellQuoting.quote(Template.apply(transform, to: argument), in: context)
                    }
                }
            }
        }
        if !hasReplacement {
            for argument in arguments { line += [0x20] + (try ShellQuoting.quote(argument, in: Context(quoting: .plain))) }
        }
        return line
    }

    /// The template with the replacement strings put in as they are, unquoted: for a job header
    /// (`@build-{}`), whose words are names to check, not shell code.
    func expandUnquoted(arguments: [[UInt8]], jobNumber: Int) -> [UInt8] {
        var line: [UInt8] = []
        for part in parts {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber, .slot: line += Array(String(jobNumber).utf8)
            case .argument(let list, let transform, _):
                if let list {
                    line += Template.apply(transform, to: list < arguments.count ? arguments[list] : [])
                } else {
                    line += Array(arguments.map { Template.apply(transform, to: $0) }.joined(separator: [0x2C]))
                }
            }
        }
        return line
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
        }
    }
}
