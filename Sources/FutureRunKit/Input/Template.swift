/// A `--each` template, parsed once: literal bytes and GNU parallel replacement strings, each
/// replacement knowing the shell quoting context it sits in, so that a substituted argument is
/// always exactly one word of data and never shell code.
///
/// | string | becomes |
/// |---|---|
/// | `{}` | the argument |
/// | `{.}` | the argument without its extension |
/// | `{/}` | its base name |
/// | `{//}` | its directory (`.` if none) |
/// | `{/.}` | its base name without extension |
/// | `{#}` | the job number |
/// | `{%}` | the job slot |
/// | `{N}` `{N.}` `{N/}` `{N//}` `{N/.}` | the same, of the Nth argument list |
public struct Template: Sendable, Equatable {
    enum Transform: Sendable, Equatable { case whole, noExtension, baseName, directory, baseNameNoExtension }

    enum Context: Sendable, Equatable {
        /// Outside quotes (also inside `$(...)` and backquotes).
        case plain
        /// Inside `"..."`.
        case doubleQuoted
        /// Inside `'...'`.
        case singleQuoted
    }

    enum Part: Sendable, Equatable {
        case literal([UInt8])
        /// Argument `list` (0-based; `nil`: all lists, for `{}` with several lists, joined by spaces).
        case argument(list: Int?, Transform, Context)
        case jobNumber
        case slot
    }

    let parts: [Part]
    /// Whether any argument replacement appears; if not, the arguments are appended.
    let usesArguments: Bool
    /// The highest `{N}` used (0 if none).
    let highestList: Int

    public init(_ bytes: [UInt8]) {
        var parts: [Part] = []
        var literal: [UInt8] = []
        var contexts = QuoteTracker()
        var index = 0
        var highest = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{"), !contexts.isEscaped,
               let (part, length) = Template.replacement(in: bytes, at: index, context: contexts.context) {
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = []
                parts.append(part)
                if case .argument(let list?, _, _) = part { highest = max(highest, list + 1) }
                index += length
                continue
            }
            contexts.feed(bytes, at: index)
            literal.append(bytes[index])
            index += 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.usesArguments = parts.contains { if case .argument = $0 { true } else { false } }
        self.highestList = highest
    }

    /// The replacement string starting at `start`, and its length, if it is one.
    private static func replacement(in bytes: [UInt8], at start: Int, context: Context) -> (Part, Int)? {
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
        return (.argument(list: list, transform, context), length)
    }

    /// The command line for one job: `arguments` (one per list) substituted and quoted.
    public func expand(arguments: [[UInt8]], jobNumber: Int, slot: Int) -> [UInt8] {
        var line: [UInt8] = []
        for part in parts {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber: line += Array(String(jobNumber).utf8)
            case .slot: line += Array(String(slot).utf8)
            case .argument(let list, let transform, let context):
                if let list {
                    line += ShellQuoting.quote(Template.apply(transform, to: list < arguments.count ? arguments[list] : []), in: context)
                } else {
                    let words = arguments.map { ShellQuoting.quote(Template.apply(transform, to: $0), in: context) }
                    line += Array(words.joined(separator: [0x20]))
                }
            }
        }
        if !usesArguments {
            for argument in arguments { line += [0x20] + ShellQuoting.quote(argument, in: .plain) }
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

/// Follows the shell's quoting through a template, byte by byte: which context a position is in.
struct QuoteTracker {
    private enum Frame { case plain, single, double, backquote, substitution }
    private var stack: [Frame] = [.plain]
    private(set) var isEscaped = false

    var context: Template.Context {
        switch stack.last! {
        case .single: .singleQuoted
        case .double: .doubleQuoted
        case .plain, .backquote, .substitution: .plain
        }
    }

    mutating func feed(_ bytes: [UInt8], at index: Int) {
        let byte = bytes[index]
        if isEscaped {
            isEscaped = false
            return
        }
        let top = stack.last!
        if top == .single {
            if byte == UInt8(ascii: "'") { stack.removeLast() }
            return
        }
        switch byte {
        case UInt8(ascii: "\\"): isEscaped = true
        case UInt8(ascii: "'") where top != .double: stack.append(.single)
        case UInt8(ascii: "\""):
            if top == .double { stack.removeLast() } else { stack.append(.double) }
        case UInt8(ascii: "`"):
            if top == .backquote { stack.removeLast() } else { stack.append(.backquote) }
        case UInt8(ascii: "("):
            if index > 0, bytes[index - 1] == UInt8(ascii: "$") { stack.append(.substitution) }
        case UInt8(ascii: ")") where top == .substitution: stack.removeLast()
        default: break
        }
    }
}

/// Quoting of data for `/bin/sh`, for each context a template can put it in.
enum ShellQuoting {
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

    static func quote(_ argument: [UInt8], in context: Template.Context) -> [UInt8] {
        let quote = UInt8(ascii: "'")
        switch context {
        case .plain:
            if !argument.isEmpty, argument.allSatisfy(isSafe) { return argument }
            var quoted: [UInt8] = [quote]
            for byte in argument {
                if byte == quote { quoted += Array(#"'\''"#.utf8) } else { quoted.append(byte) }
            }
            quoted.append(quote)
            return quoted
        case .singleQuoted:
            // Already inside '...': everything is literal except the quote itself.
            var quoted: [UInt8] = []
            for byte in argument {
                if byte == quote { quoted += Array(#"'\''"#.utf8) } else { quoted.append(byte) }
            }
            return quoted
        case .doubleQuoted:
            // Inside "...": only $ ` " \ are special.
            var quoted: [UInt8] = []
            for byte in argument {
                if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    quoted.append(UInt8(ascii: "\\"))
                }
                quoted.append(byte)
            }
            return quoted
        }
    }
}
