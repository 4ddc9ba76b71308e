/// Follows the shell's quoting through a template, byte by byte, to guess the quotes around each
/// replacement string: code, `"..."`, `'...'`, a here-document body. A wrong guess costs wrong
/// text, never code (``ShellQuoting``); where a reference cannot expand at all (a quoted
/// here-document, `$'...'`, a here-document's delimiter word) the template is refused.
///
/// Only the template's own bytes are fed; a replacement's text never is.
package struct QuoteTracker {
    /// A here-document announced by `<<WORD` or `<<-WORD`.
    package struct HereDocument: Equatable {
        package var delimiter: [UInt8]
        /// Unquoted WORD: `$`, `` ` `` and `\` are active in the body.
        var expands: Bool
        /// `<<-`: leading tabs are stripped from body lines, the delimiter line included.
        var stripsTabs: Bool
    }

    private enum Frame: Equatable {
        case plain
        case single
        case double
        /// `$'...'`: bash reads C escapes there; dash reads `$` and a single-quoted string.
        case ansiC
        /// `` `...` ``: its inside is code, unescaped once first (`\"` too when it opened inside
        /// `"..."`); `` \`...\` `` inside it is a nested level.
        case backquote(insideDouble: Bool)
        /// `$(...)`: its inside is code.
        case substitution
        /// `(...)` in code (a subshell, a function's `()`, a case pattern's opening `(`).
        case parenthesis
        /// `case WORD in ... esac`: a `)` there ends a pattern, not a substitution.
        case caseClause
        case hereDocument(HereDocument)
        /// From an unquoted `#` at the start of a word to the end of the line (or backquote).
        case comment

        var isCode: Bool {
            switch self {
            case .plain, .backquote, .substitution, .parenthesis, .caseClause: true
            default: false
            }
        }
    }

    /// Byte ranges where `<` is arithmetic, not a here-document (``ArithmeticRegions``).
    private let arithmetic: ArithmeticRegions
    private var stack: [Frame] = [.plain]
    private var pending: [HereDocument] = []
    private(set) var isEscaped = false
    /// The byte before was a `$` that no backslash escaped.
    private var afterDollar = false
    /// The byte index up to which a here-document's delimiter word runs (a replacement there
    /// would change where the body ends).
    private var delimiterWordEnd = -1
    /// Bytes of a here-document's delimiter line still to pass before its frame closes.
    private var closingLineLeft = 0

    package init(arithmetic: ArithmeticRegions) { self.arithmetic = arithmetic }

    /// The surroundings of a replacement at `index`, or why none can be established.
    package func site(at index: Int) -> Result<ShellQuoting.Site, UsageError> {
        surroundings(at: index).map { ShellQuoting.Site(surroundings: $0, backquotes: backquotes) }
    }

    /// For each backquote around the current byte, outermost first, whether it opened inside `"..."`.
    private var backquotes: [Bool] {
        stack.compactMap { if case .backquote(let insideDouble) = $0 { insideDouble } else { nil } }
    }

    private var isInBackquotes: Bool { !backquotes.isEmpty }

    private func surroundings(at index: Int) -> Result<ShellQuoting.Surroundings, UsageError> {
        if index <= delimiterWordEnd {
            return .failure(.unsafeTemplate(context: "a here-document's delimiter", hint: "use a fixed delimiter such as EOF"))
        }
        switch stack.last! {
        case .plain, .backquote, .substitution, .parenthesis, .caseClause, .comment: return .success(.code)
        case .double: return .success(.doubleQuotes)
        case .single: return .success(.singleQuotes)
        case .hereDocument(let document):
            if document.expands { return .success(.doubleQuotes) }
            return .failure(
                .unsafeTemplate(
                    context: "a quoted here-document (<<'\(String(decoding: document.delimiter, as: UTF8.self))')",
                    hint: "nothing expands there; leave the delimiter unquoted"))
        case .ansiC:
            return .failure(
                .unsafeTemplate(context: "$'...'", hint: "nothing expands there; put the replacement outside, as in $'\\t'{}"))
        }
    }

    /// Reads the template byte at `index` (never a replacement's).
    package mutating func feed(_ bytes: [UInt8], at index: Int) {
        let byte = bytes[index]
        let wasDollar = afterDollar
        afterDollar = false
        if isEscaped {
            isEscaped = false
            // `\`` inside backquotes opens or closes a nested level.
            if byte == UInt8(ascii: "`"), isInBackquotes {
                if case .backquote = stack.last!, backquotes.count > 1 {
                    stack.removeLast()
                } else if stack.last!.isCode || stack.last! == .double {
                    stack.append(.backquote(insideDouble: stack.last! == .double))
                }
            }
            return
        }
        if closingLineLeft > 0 {
            closingLineLeft -= 1
            if closingLineLeft == 0 { closeHereDocument(bytes, next: index + 1) }
            return
        }
        switch stack.last! {
        case .single:
            if byte == UInt8(ascii: "'") { stack.removeLast() }
        case .comment:
            if byte == 0x0A {
                stack.removeLast()
                beginHereDocument(bytes, at: index + 1)
            } else if byte == UInt8(ascii: "`"), isInBackquotes {
                // A comment inside backquotes ends with them: the shell cuts the backquoted text first.
                stack.removeLast()
                closeBackquote()
            }
        case .ansiC:
            if byte == UInt8(ascii: "\\") {
                isEscaped = true
            } else if byte == UInt8(ascii: "'") {
                stack.removeLast()
            }
        case .double:
            switch byte {
            case UInt8(ascii: "\\"): isEscaped = true
            case UInt8(ascii: "\""): stack.removeLast()
            case UInt8(ascii: "`"): stack.append(.backquote(insideDouble: true))
            case UInt8(ascii: "$"): afterDollar = true
            case UInt8(ascii: "("): if wasDollar { stack.append(.substitution) }
            default: break
            }
        case .hereDocument(let document):
            if document.expands {
                switch byte {
                case UInt8(ascii: "\\"): isEscaped = true
                case UInt8(ascii: "`"): stack.append(.backquote(insideDouble: false))
                case UInt8(ascii: "$"): afterDollar = true
                case UInt8(ascii: "("): if wasDollar { stack.append(.substitution) }
                case 0x0A: startHereDocumentLine(bytes, at: index + 1, document)
                default: break
                }
            } else if byte == 0x0A {
                startHereDocumentLine(bytes, at: index + 1, document)
            }
        case .plain, .substitution, .backquote, .parenthesis, .caseClause:
            feedCode(bytes, at: index, afterDollar: wasDollar)
        }
    }

    /// A byte of shell code (outside quotes).
    private mutating func feedCode(_ bytes: [UInt8], at index: Int, afterDollar wasDollar: Bool) {
        let byte = bytes[index]
        let startsWord = index == 0 || [0x20, 0x09, 0x0A, 0x3B, 0x26, 0x7C, 0x28, 0x29].contains(bytes[index - 1])
        switch byte {
        case UInt8(ascii: "\\"): isEscaped = true
        case UInt8(ascii: "$"): afterDollar = true
        case UInt8(ascii: "'"): stack.append(wasDollar ? .ansiC : .single)
        case UInt8(ascii: "\""): stack.append(.double)
        case UInt8(ascii: "`"):
            if isInBackquotes { closeBackquote() } else { stack.append(.backquote(insideDouble: false)) }
        case UInt8(ascii: "("): stack.append(wasDollar ? .substitution : .parenthesis)
        case UInt8(ascii: ")"):
            // In a case clause, a `)` that closes nothing opened inside it ends a pattern.
            if stack.last == .substitution || stack.last == .parenthesis { stack.removeLast() }
        case UInt8(ascii: "#"):
            if startsWord { stack.append(.comment) }
        case UInt8(ascii: "<"):
            if arithmetic.construct(containing: index) == nil { announceHereDocument(bytes, at: index) }
        case 0x0A: beginHereDocument(bytes, at: index + 1)
        default:
            if startsWord, Self.word("case", in: bytes, at: index) {
                stack.append(.caseClause)
            } else if startsWord, stack.last == .caseClause, Self.word("esac", in: bytes, at: index) {
                stack.removeLast()
            }
        }
    }

    /// The backquote innermost on the stack closes, with whatever opened inside it.
    private mutating func closeBackquote() {
        while let last = stack.popLast() {
            if case .backquote = last { break }
        }
        if stack.isEmpty { stack = [.plain] }
    }

    /// `word` at `index`, followed by a blank, `;`, a newline or the end.
    private static func word(_ word: String, in bytes: [UInt8], at index: Int) -> Bool {
        let pattern = Array(word.utf8)
        let end = index + pattern.count
        guard end <= bytes.count, bytes[index..<end].elementsEqual(pattern) else { return false }
        return end == bytes.count || [0x20, 0x09, 0x0A, 0x3B].contains(bytes[end])
    }

    /// At `<<WORD` (not `<<<`, not the second `<` of one): the here-document whose body begins
    /// after this line.
    private mutating func announceHereDocument(_ bytes: [UInt8], at index: Int) {
        guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "<"),
            index == 0 || bytes[index - 1] != UInt8(ascii: "<"),
            index + 2 >= bytes.count || bytes[index + 2] != UInt8(ascii: "<")
        else { return }
        var position = index + 2
        let stripsTabs = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if stripsTabs { position += 1 }
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }
        var delimiter: [UInt8] = []
        var quoted = false
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil } else { delimiter.append(byte) }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                quoted = true
            } else if byte == UInt8(ascii: "\\") {
                quoted = true
                if position + 1 < bytes.count { delimiter.append(bytes[position + 1]) }
                position += 1
            } else if [0x20, 0x09, 0x0A, 0x3B, 0x26, 0x7C, 0x3C, 0x3E, 0x28, 0x29].contains(byte) {
                break
            } else {
                delimiter.append(byte)
            }
            position += 1
        }
        delimiterWordEnd = position - 1
        pending.append(HereDocument(delimiter: delimiter, expands: !quoted, stripsTabs: stripsTabs))
    }

    /// After an unquoted newline in code (the line starting at `start`): the first announced
    /// here-document's body begins.
    private mutating func beginHereDocument(_ bytes: [UInt8], at start: Int) {
        guard !pending.isEmpty else { return }
        let document = pending.removeFirst()
        stack.append(.hereDocument(document))
        startHereDocumentLine(bytes, at: start, document)
    }

    /// At the start of a body line: if it is the delimiter line, the body ends with it.
    private mutating func startHereDocumentLine(_ bytes: [UInt8], at start: Int, _ document: HereDocument) {
        var lineStart = start
        if document.stripsTabs { while lineStart < bytes.count, bytes[lineStart] == 0x09 { lineStart += 1 } }
        let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
        guard Array(bytes[lineStart..<lineEnd]) == document.delimiter else { return }
        // Pass the line's bytes (and its newline, if any), then close.
        closingLineLeft = min(lineEnd + 1, bytes.count) - start
        if closingLineLeft == 0 { closeHereDocument(bytes, next: start) }
    }

    /// The delimiter line has passed; the next line starts at `next`.
    private mutating func closeHereDocument(_ bytes: [UInt8], next: Int) {
        if case .hereDocument = stack.last! { stack.removeLast() }
        beginHereDocument(bytes, at: next)
    }
}
