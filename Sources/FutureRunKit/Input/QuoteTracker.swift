/// Follows the shell's quoting through a template, byte by byte, so that each replacement string
/// knows how `/bin/sh` will read the text put in its place: plain, inside `"..."` or `'...'`, in a
/// here-document body, under how many backquotes. Where no quoting can keep an argument data
/// (inside `$'...'`, nested backquotes), the context says so and the template is refused.
///
/// Only the template's own bytes are fed; a replacement's text never is.
struct QuoteTracker {
    /// A here-document announced by `<<WORD` or `<<-WORD`.
    struct HereDocument: Equatable {
        var delimiter: [UInt8]
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
        /// `` `...` ``: its inside is unescaped once, then run; `insideDouble` when it opened in `"..."`.
        case backquote(insideDouble: Bool)
        /// `$(...)`: its inside is parsed afresh.
        case substitution
        case hereDocument(HereDocument)
        /// From an unquoted `#` at the start of a word to the end of the line.
        case comment
    }

    private var stack: [Frame] = [.plain]
    private var pending: [HereDocument] = []
    private(set) var isEscaped = false
    /// The byte index up to which a here-document's delimiter word runs (a replacement there
    /// would change where the body ends).
    private var delimiterWordEnd = -1
    /// Bytes of a here-document's delimiter line still to pass before its frame closes.
    private var closingLineLeft = 0
    /// A reason why no replacement from here on can be placed safely, once one is seen.
    private var ambiguity: String?
    /// Parity of escaped backquotes inside the innermost backquote (`\``: a nested level).
    private var nestedBackquote = false

    /// The context a replacement at `index` lands in, or why it cannot be placed there.
    func context(at index: Int) -> Result<Template.Context, UsageError> {
        if let ambiguity { return .failure(.unsafeTemplate(context: ambiguity, hint: "put the replacement before it")) }
        if index <= delimiterWordEnd {
            return .failure(.unsafeTemplate(context: "a here-document's delimiter", hint: "use a fixed delimiter such as EOF"))
        }
        if nestedBackquote {
            return .failure(.unsafeTemplate(context: "nested backquotes", hint: "write $(...) instead of backquotes"))
        }
        var backquotes: [Bool] = []
        var quoting: Template.Context.Quoting = .plain
        for frame in stack {
            switch frame {
            case .plain, .substitution, .comment: quoting = .plain
            case .single: quoting = .singleQuoted
            case .double: quoting = .doubleQuoted
            case .hereDocument(let document): quoting = .hereDocument(document)
            case .backquote(let insideDouble):
                backquotes.append(insideDouble)
                quoting = .plain
            case .ansiC:
                return .failure(
                    .unsafeTemplate(
                        context: "$'...'", hint: "bash and dash read it differently; put the replacement outside, as in $'\\t'{}")
                )
            }
        }
        return .success(Template.Context(quoting: quoting, backquotes: backquotes))
    }

    /// Reads the template byte at `index` (never a replacement's).
    mutating func feed(_ bytes: [UInt8], at index: Int) {
        let byte = bytes[index]
        if isEscaped {
            isEscaped = false
            if byte == UInt8(ascii: "`"), stack.contains(where: { if case .backquote = $0 { true } else { false } }) {
                nestedBackquote.toggle()
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
            }
        case .ansiC:
            if byte == UInt8(ascii: "\\") {
                isEscaped = true
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") {
                    ambiguity = "$'...' holding \\'"
                }
            } else if byte == UInt8(ascii: "'") {
                stack.removeLast()
            }
        case .double:
            switch byte {
            case UInt8(ascii: "\\"): isEscaped = true
            case UInt8(ascii: "\""): stack.removeLast()
            case UInt8(ascii: "`"): stack.append(.backquote(insideDouble: true))
            case UInt8(ascii: "("): openSubstitution(bytes, at: index)
            default: break
            }
        case .hereDocument(let document):
            if document.expands {
                switch byte {
                case UInt8(ascii: "\\"): isEscaped = true
                case UInt8(ascii: "`"): stack.append(.backquote(insideDouble: false))
                case UInt8(ascii: "("): openSubstitution(bytes, at: index)
                case 0x0A: startHereDocumentLine(bytes, at: index + 1, document)
                default: break
                }
            } else if byte == 0x0A {
                startHereDocumentLine(bytes, at: index + 1, document)
            }
        case .plain, .substitution, .backquote:
            feedCode(bytes, at: index)
        }
    }

    /// A byte of shell code (outside quotes).
    private mutating func feedCode(_ bytes: [UInt8], at index: Int) {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\\"): isEscaped = true
        case UInt8(ascii: "'"):
            stack.append(index > 0 && bytes[index - 1] == UInt8(ascii: "$") ? .ansiC : .single)
        case UInt8(ascii: "\""): stack.append(.double)
        case UInt8(ascii: "`"):
            if case .backquote = stack.last! {
                stack.removeLast()
                nestedBackquote = false
            } else {
                stack.append(.backquote(insideDouble: false))
            }
        case UInt8(ascii: "("): openSubstitution(bytes, at: index)
        case UInt8(ascii: ")"):
            if stack.last == .substitution { stack.removeLast() }
        case UInt8(ascii: "#"):
            if index == 0 || [0x20, 0x09, 0x0A, 0x3B, 0x26, 0x7C, 0x28, 0x29].contains(bytes[index - 1]) {
                stack.append(.comment)
            }
        case UInt8(ascii: "<"):
            announceHereDocument(bytes, at: index)
        case 0x0A: beginHereDocument(bytes, at: index + 1)
        default: break
        }
    }

    private mutating func openSubstitution(_ bytes: [UInt8], at index: Int) {
        if index > 0, bytes[index - 1] == UInt8(ascii: "$") { stack.append(.substitution) }
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
