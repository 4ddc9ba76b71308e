/// Reads a template as the shell reads it before it decides what each word is — line
/// continuations removed, quotes removed from command names (`"let"`, `\let` and `l''et` are
/// `let`), `$(…)`, backquotes, `${…}` and `$((…))` nested, here-documents, `[[ … ]]`,
/// assignments, subscripts — and tells, for each replacement string, whether it stands in a place
/// that is data in dash, bash, zsh and ksh alike (``ReplacementSites``).
///
/// The template comes with each replacement string as one NUL byte (a hole): a template from the
/// command line holds no NUL of its own.
package struct ShellLexer {
    package let text: [UInt8]
    /// The number of the first hole in `text`: a backquoted part is read by a lexer of its own.
    private let holeBase: Int
    private var holesBefore: [Int]
    private let holeCount: Int
    package var position = 0
    var analysis: SiteAnalysis
    /// Here-documents announced on the current line, read after its newline.
    var pendingHereDocuments: [HereDocument] = []

    package struct HereDocument {
        package var delimiter: [UInt8]
        var expands: Bool
        var stripsTabs: Bool
    }

    /// Where a list of commands ends.
    package enum End: Equatable { case text, parenthesis, caseItem, esac }

    package init(_ text: [UInt8], holeBase: Int = 0, analysis: SiteAnalysis = SiteAnalysis()) {
        self.text = text
        self.holeBase = holeBase
        self.analysis = analysis
        var count = 0
        holesBefore = text.map { byte in
            defer { if byte == 0 { count += 1 } }
            return count
        }
        holeCount = count
    }

    static let hole: UInt8 = 0

    // MARK: Reading bytes

    /// The number of the hole at `index`.
    func holeNumber(at index: Int) -> Int { holeBase + (index < holesBefore.count ? holesBefore[index] : holeCount) }

    /// The byte at the cursor, after any line continuations (`\` newline), which the shell removes
    /// before it reads anything else, outside single quotes.
    mutating func peek() -> UInt8? {
        while position + 1 < text.count, text[position] == UInt8(ascii: "\\"), text[position + 1] == 0x0A { position += 2 }
        return position < text.count ? text[position] : nil
    }

    /// The byte `offset` bytes after the cursor, line continuations skipped.
    func peek(_ offset: Int) -> UInt8? {
        var index = position
        var left = offset
        while true {
            while index + 1 < text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == 0x0A { index += 2 }
            guard index < text.count else { return nil }
            if left == 0 { return text[index] }
            left -= 1
            index += 1
        }
    }

    /// Whether `word` starts at the cursor (continuations skipped), ending where a word ends.
    func atWord(_ word: String) -> Bool {
        for (offset, byte) in word.utf8.enumerated() where peek(offset) != byte { return false }
        guard let after = peek(word.utf8.count) else { return true }
        return Self.endsWord(after)
    }

    mutating func advance(_ count: Int = 1) {
        for _ in 0..<count {
            _ = peek()
            position += 1
        }
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Bytes that end an unquoted word.
    static func endsWord(_ byte: UInt8) -> Bool { isBlank(byte) || byte == 0x0A || ";&|()<>".utf8.contains(byte) }

    package static func isNameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): true
        default: false
        }
    }

    package static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    package static func isName(_ bytes: [UInt8]) -> Bool { bytes.first.map(isNameStart) == true && bytes.allSatisfy(isNameByte) }

    mutating func skipBlanks() {
        while let byte = peek(), Self.isBlank(byte) { position += 1 }
    }

    /// From a `#` that starts a word to the end of its line (continuations do not apply).
    mutating func skipComment() {
        while position < text.count, text[position] != 0x0A {
            if text[position] == Self.hole { analysis.hole(holeNumber(at: position)) }
            position += 1
        }
    }

    // MARK: Lists and commands

    /// Reads commands to the end of the text, or to what ends the list it is in: a `)` (inside
    /// `(…)` or `$(…)`), `;;` or `esac` (inside a case item).
    package mutating func list(inParentheses: Bool = false, inCase: Bool = false) -> End {
        while true {
            skipBlanks()
            guard let byte = peek() else { return .text }
            switch byte {
            case UInt8(ascii: "#"):
                skipComment()
            case 0x0A:
                advance()
                readHereDocuments()
            case UInt8(ascii: ";"):
                advance()
                if peek() == UInt8(ascii: ";") || peek() == UInt8(ascii: "&") {
                    advance()
                    if peek() == UInt8(ascii: "&") { advance() }
                    if inCase { return .caseItem }
                }
            case UInt8(ascii: "&"), UInt8(ascii: "|"):
                advance()
            case UInt8(ascii: ")"):
                advance()
                if inParentheses { return .parenthesis }
            case UInt8(ascii: "("):
                if peek(1) == UInt8(ascii: "(") {
                    advance(2)
                    arithmetic(closing: [UInt8(ascii: ")"), UInt8(ascii: ")")], construct: "((...))")
                } else {
                    advance()
                    _ = list(inParentheses: true)
                }
            default:
                if simpleCommand(inCase: inCase) == .esac { return .esac }
            }
        }
    }

    /// A list read by itself: the whole text.
    mutating func readAll() {
        while list() != .text {}
        readHereDocuments()
    }

    /// Reserved words that may come before a command (the command follows them).
    private static let leadingKeywords: Set<String> = [
        "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "coproc",
    ]
    /// Reserved words that end a compound command (redirections may follow).
    private static let closingKeywords: Set<String> = ["fi", "done", "}"]

    /// A simple command, or the keyword that starts or ends a compound one. Returns `.esac` when it
    /// meets the `esac` that ends the case it is in.
    private mutating func simpleCommand(inCase: Bool) -> End? {
        var words: [ShellWord] = []
        while true {
            skipBlanks()
            guard let byte = peek(), byte != 0x0A, !";&|)".utf8.contains(byte) else { break }
            if byte == UInt8(ascii: "#") {
                skipComment()
                break
            }
            if redirection() { continue }
            if byte == UInt8(ascii: "(") {
                // `name()`: a function definition; anything else here is a syntax error.
                if peek(1) == UInt8(ascii: ")"), words.count == 1, let name = words[0].literal {
                    advance(2)
                    analysis.defineFunction(String(decoding: name, as: UTF8.self))
                    return nil
                }
                if words.count == 1 { analysis.refuse(words[0].data.holes, Self.unreadable) }
                break
            }
            if words.isEmpty {
                if inCase, atWord("esac") {
                    advance(4)
                    return .esac
                }
                if let keyword = leadingKeyword() {
                    advance(keyword.utf8.count)
                    if keyword == "coproc" || keyword == "time" { continue }
                    return nil
                }
                if atWord("case") { return caseCommand() }
                if atWord("for") || atWord("select") { return forCommand() }
                if atWord("function") { return functionKeyword() }
                if atWord("[[") {
                    advance(2)
                    conditional()
                    continue
                }
                if assignment() { continue }
            }
            words.append(word())
        }
        command(words)
        return nil
    }

    private func leadingKeyword() -> String? {
        Self.leadingKeywords.union(Self.closingKeywords).first { atWord($0) }
    }

    /// `NAME=VALUE`, `NAME+=VALUE`, `NAME[SUBSCRIPT]=VALUE` before a command: the value may carry
    /// data, the subscript and a compound value `(…)` may not.
    private mutating func assignment() -> Bool {
        var length = 0
        while let byte = peek(length), Self.isNameByte(byte) { length += 1 }
        guard length > 0, let first = peek(0), Self.isNameStart(first) else { return false }
        var after = length
        var subscripted = false
        if peek(after) == UInt8(ascii: "[") {
            subscripted = true
            after += 1
            var depth = 1
            while let byte = peek(after), depth > 0 {
                if byte == UInt8(ascii: "[") { depth += 1 }
                if byte == UInt8(ascii: "]") { depth -= 1 }
                if byte == 0x0A || Self.isBlank(byte) { return false }
                after += 1
            }
            guard depth == 0 else { return false }
        }
        if peek(after) == UInt8(ascii: "+") { after += 1 }
        guard peek(after) == UInt8(ascii: "=") else { return false }
        let name = String(decoding: (0..<length).compactMap { peek($0) }, as: UTF8.self)
        advance(length)
        if subscripted {
            advance()
            arithmetic(closing: [UInt8(ascii: "]")], construct: "an array subscript")
        }
        while peek() != UInt8(ascii: "=") { advance() }
        advance()
        if peek() == UInt8(ascii: "(") {
            advance()
            compoundValue()
            return true
        }
        let value = word()
        analysis.assign(name, value.data)
        return true
    }

    /// A redirection at the cursor (`>`, `2>>`, `&>`, `<<<`, `<<EOF`), with its target word. Its
    /// target is data; a here-document's delimiter is not.
    private mutating func redirection() -> Bool {
        var offset = 0
        while let byte = peek(offset), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
        if offset == 0, peek() == UInt8(ascii: "&"), peek(1) == UInt8(ascii: ">") { offset = 1 }
        guard let byte = peek(offset), byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") else { return false }
        // `<(…)` and `>(…)` are process substitutions, words of their own.
        if offset == 0, peek(1) == UInt8(ascii: "(") { return false }
        advance(offset + 1)
        if byte == UInt8(ascii: "<"), peek() == UInt8(ascii: "<"), peek(1) != UInt8(ascii: "<") {
            advance()
            let stripsTabs = peek() == UInt8(ascii: "-")
            if stripsTabs { advance() }
            skipBlanks()
            let delimiter = word()
            analysis.refuse(
                delimiter.data.holes,
                SiteRefusal(construct: "a here-document's delimiter", hint: "use a fixed delimiter such as EOF"))
            pendingHereDocuments.append(
                HereDocument(delimiter: delimiter.unquoted, expands: !delimiter.quoted, stripsTabs: stripsTabs))
            return true
        }
        while let next = peek(), "<>&|".utf8.contains(next) { advance() }
        skipBlanks()
        _ = word()
        return true
    }

    package static let unreadable = SiteRefusal(
        construct: "a construct futurerun cannot read", hint: "write it as plain commands, with the argument as a word")

    static func nameRefusal(_ construct: String) -> SiteRefusal {
        SiteRefusal(
            construct: construct, hint: "a name there is evaluated, and x[$(cmd)] runs cmd: write the name in the template")
    }
}
