/// One word of a template as the shell reads it.
package struct ShellWord {
    /// What it carries: holes and variables, nested ones included.
    package var data = CarriedData()
    /// Its text after quote removal, if nothing in it expands (no hole, `$`, backquote).
    package var literal: [UInt8]? = []
    /// The bytes it holds literally, quotes removed and expansions left out.
    package var unquoted: [UInt8] = []
    /// Some part of it was quoted or escaped.
    package var quoted = false
    /// `NAME=` or `NAME+=` starts it, unquoted: an assignment's name.
    var assignedName: String?
    /// Its first byte, if a literal byte comes first (not an expansion or a hole).
    private(set) var firstByte: UInt8?
    private var begun = false

    package mutating func append(_ byte: UInt8) {
        if !begun { firstByte = byte }
        begun = true
        literal?.append(byte)
        unquoted.append(byte)
    }

    mutating func expands() {
        begun = true
        literal = nil
    }

    /// Whether it can be an option (start with `-` or `+`), whatever an argument in it holds.
    var mayBeOption: Bool { firstByte.map { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") } ?? true }

    var literalText: String? { literal.map { String(decoding: $0, as: UTF8.self) } }

    /// What it carries, and the names its literal text holds: in an arithmetic expression
    /// (`let x`, `[[ x -eq 1 ]]`) a bare name is a variable whose value is evaluated.
    var asExpression: CarriedData {
        var names = data.names
        var name: [UInt8] = []
        for byte in unquoted + [0x20] {
            if ShellLexer.isNameByte(byte), !(name.isEmpty && !ShellLexer.isNameStart(byte)) {
                name.append(byte)
            } else {
                if !name.isEmpty { names.insert(String(decoding: name, as: UTF8.self)) }
                name = []
            }
        }
        return CarriedData(holes: data.holes, names: names)
    }
}

extension ShellLexer {
    /// The name at the cursor (`[A-Za-z_][A-Za-z0-9_]*`, continuations skipped), read.
    mutating func readName() -> [UInt8] {
        var name: [UInt8] = []
        while let next = peek(), Self.isNameByte(next) {
            name.append(next)
            advance()
        }
        return name
    }

    /// Reads a word outside quotes: up to a blank, newline or operator (or a byte of `extra`).
    package mutating func word(endingAt extra: [UInt8] = [], regex: Bool = false) -> ShellWord {
        analysis.beginCollecting()
        var word = ShellWord()
        while let byte = peek() {
            let ends = regex ? Self.isBlank(byte) || byte == 0x0A : Self.endsWord(byte) || extra.contains(byte)
            if ends {
                if byte == UInt8(ascii: "("), word.assignedName != nil, word.unquoted.last == UInt8(ascii: "=") {
                    advance()
                    compoundValue()
                    word.expands()
                    continue
                }
                if byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">"), peek(1) == UInt8(ascii: "("), !regex {
                    advance(2)
                    _ = list(inParentheses: true)
                    word.expands()
                    continue
                }
                break
            }
            switch byte {
            case UInt8(ascii: "'"):
                singleQuoted(into: &word)
            case UInt8(ascii: "\""):
                advance()
                doubleQuoted(into: &word)
            case UInt8(ascii: "="):
                if word.assignedName == nil, !word.quoted, word.literal != nil, Self.isName(word.unquoted) {
                    word.assignedName = String(decoding: word.unquoted, as: UTF8.self)
                } else if word.assignedName == nil, !word.quoted, word.literal != nil, word.unquoted.last == UInt8(ascii: "+"),
                    Self.isName(word.unquoted.dropLast())
                {
                    word.assignedName = String(decoding: word.unquoted.dropLast(), as: UTF8.self)
                }
                word.append(byte)
                advance()
            default:
                quotedByte(escapable: nil, into: &word)
            }
        }
        word.data = analysis.endCollecting()
        return word
    }

    /// One byte (or escape, expansion, hole) outside single quotes. `escapable`: inside double
    /// quotes or a here-document, the bytes a backslash escapes; `nil` outside quotes (all).
    mutating func quotedByte(escapable: String?, into word: inout ShellWord) {
        guard let byte = peek() else { return }
        switch byte {
        case Self.hole:
            analysis.hole(holeNumber(at: position))
            word.expands()
            advance()
        case UInt8(ascii: "\\"):
            position += 1
            guard position < text.count else { return word.append(byte) }
            let next = text[position]
            if let escapable, !escapable.utf8.contains(next) {
                word.append(byte)
                return
            }
            word.quoted = true
            word.append(next)
            position += 1
        case UInt8(ascii: "$"):
            dollar(inDoubleQuotes: escapable != nil, into: &word)
        case UInt8(ascii: "`"):
            backquote(insideDoubleQuotes: escapable != nil)
            word.expands()
        default:
            word.append(byte)
            advance()
        }
    }

    /// Overload for places that only read: here-document bodies.
    mutating func quotedByte(escapable: String) {
        var scratch = ShellWord()
        quotedByte(escapable: escapable, into: &scratch)
    }

    private mutating func singleQuoted(into word: inout ShellWord) {
        word.quoted = true
        position += 1
        while position < text.count, text[position] != UInt8(ascii: "'") {
            if text[position] == Self.hole {
                analysis.hole(holeNumber(at: position))
                word.expands()
            } else {
                word.append(text[position])
            }
            position += 1
        }
        position += 1
    }

    /// After the opening `"`: to the closing one.
    package mutating func doubleQuoted(into word: inout ShellWord) {
        word.quoted = true
        while let byte = peek() {
            if byte == UInt8(ascii: "\"") {
                advance()
                return
            }
            quotedByte(escapable: "$`\"\\", into: &word)
        }
    }

    /// At a `$`: an expansion, or a plain `$`.
    private mutating func dollar(inDoubleQuotes: Bool, into word: inout ShellWord) {
        advance()
        guard let byte = peek() else { return word.append(UInt8(ascii: "$")) }
        switch byte {
        case UInt8(ascii: "("):
            if peek(1) == UInt8(ascii: "(") {
                advance(2)
                arithmetic(closing: [UInt8(ascii: ")"), UInt8(ascii: ")")], construct: "$((...))")
            } else {
                advance()
                _ = list(inParentheses: true)
            }
        case UInt8(ascii: "["):
            advance()
            arithmetic(closing: [UInt8(ascii: "]")], construct: "$[...]")
        case UInt8(ascii: "{"):
            advance()
            parameterExpansion(inDoubleQuotes: inDoubleQuotes)
        case UInt8(ascii: "'") where !inDoubleQuotes:
            ansiCString()
        case UInt8(ascii: "\"") where !inDoubleQuotes:
            advance()
            doubleQuoted(into: &word)
            return
        case Self.hole:
            analysis.refuse(
                [holeNumber(at: position)],
                SiteRefusal(construct: "the name after a $", hint: "a name there is read as code; write the name in the template")
            )
            word.append(UInt8(ascii: "$"))
            return
        default:
            if Self.isNameStart(byte) {
                analysis.reference(String(decoding: readName(), as: UTF8.self))
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "@*#?$!-".utf8.contains(byte) {
                analysis.reference(String(UnicodeScalar(byte)))
                advance()
            } else {
                return word.append(UInt8(ascii: "$"))
            }
        }
        word.expands()
    }

    /// `$'...'`: bash reads C escapes there, dash a `$` and a single-quoted string; nothing expands.
    private mutating func ansiCString() {
        position += 1
        while position < text.count, text[position] != UInt8(ascii: "'") {
            if text[position] == UInt8(ascii: "\\") {
                position += 2
                continue
            }
            if text[position] == Self.hole {
                let number = holeNumber(at: position)
                analysis.hole(number)
                analysis.refuse(
                    [number],
                    SiteRefusal(construct: "$'...'", hint: "nothing expands there; put the replacement outside, as in $'\\t'{}"))
            }
            position += 1
        }
        position += 1
    }

    /// After `${`: the parameter, its subscript and its operator, to the closing `}`.
    private mutating func parameterExpansion(inDoubleQuotes: Bool) {
        var indirect = false
        if peek() == UInt8(ascii: "!"), let next = peek(1), next != UInt8(ascii: "}") {
            indirect = true
            advance()
        }
        if peek() == UInt8(ascii: "#"), let next = peek(1), Self.isNameByte(next) || "@*!?$-".utf8.contains(next) {
            advance()  // `${#x}`: the length
        }
        var name: [UInt8] = []
        if let first = peek(), Self.isNameStart(first) {
            name = readName()
        } else if let first = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
            while let next = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                name.append(next)
                advance()
            }
        } else if let first = peek(), "@*#?$!-".utf8.contains(first) {
            name = [first]
            advance()
        } else {
            collectOperand(inDoubleQuotes: inDoubleQuotes, refusal: Self.nameRefusal("the name of a ${...} expansion"))
            return
        }
        let parameter = String(decoding: name, as: UTF8.self)
        analysis.reference(parameter)
        if indirect, !(peek() == UInt8(ascii: "}") && ["@", "*"].contains(parameter)) {
            analysis.evaluates(
                CarriedData(names: [parameter]),
                SiteRefusal(
                    construct: "${!\(parameter)}, which reads a value as a name",
                    hint: "a name there is evaluated, and x[$(cmd)] runs cmd: name the variable in the template"))
        }
        if peek() == UInt8(ascii: "[") {
            advance()
            arithmetic(closing: [UInt8(ascii: "]")], construct: "an array subscript")
        }
        guard let operation = peek() else { return }
        if operation == UInt8(ascii: "}") { return advance() }
        var defaulting = "-=+?".utf8.contains(operation)
        if operation == UInt8(ascii: ":") {
            guard let next = peek(1), "-=+?".utf8.contains(next) else {
                advance()
                return arithmetic(closing: [UInt8(ascii: "}")], construct: "a ${NAME:OFFSET} expansion")
            }
            advance()
            defaulting = true
        }
        let operatorByte = peek() ?? operation
        advance()
        if defaulting, !indirect {
            // `${x:-WORD}`: WORD is expanded as a word is; `:=` assigns it to x.
            analysis.beginCollecting()
            operand(inDoubleQuotes: inDoubleQuotes)
            let data = analysis.endCollecting()
            if operatorByte == UInt8(ascii: "=") { analysis.assign(parameter, data) }
            return
        }
        if operation == UInt8(ascii: "@") {
            analysis.evaluates(
                CarriedData(names: [parameter]),
                SiteRefusal(
                    construct: "${\(parameter)@...}, which can expand a value as a prompt", hint: "print the value as it is"))
        }
        collectOperand(
            inDoubleQuotes: inDoubleQuotes,
            refusal: SiteRefusal(
                construct: "an operand of ${\(parameter)\(String(UnicodeScalar(operation)))...}",
                hint:
                    "the shell reads it as a pattern or a replacement; assign the argument first and quote it there, as in n={}; echo \"${x/a/\"$n\"}\""
            ))
    }

    /// An operand of `${…}` to its closing `}`, every hole in it refused with `refusal`.
    private mutating func collectOperand(inDoubleQuotes: Bool, refusal: SiteRefusal) {
        analysis.beginCollecting()
        operand(inDoubleQuotes: inDoubleQuotes)
        analysis.refuse(analysis.endCollecting().holes, refusal)
    }

    /// The word inside `${…}` after its operator, to the closing `}`.
    private mutating func operand(inDoubleQuotes: Bool) {
        var scratch = ShellWord()
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "}"):
                return advance()
            case UInt8(ascii: "'") where !inDoubleQuotes:
                singleQuoted(into: &scratch)
            case UInt8(ascii: "\""):
                advance()
                doubleQuoted(into: &scratch)
            default:
                quotedByte(escapable: inDoubleQuotes ? "$`\"\\}" : nil, into: &scratch)
            }
        }
    }

    /// An arithmetic expression, to `closing` (`))`, `]` or `}`) at its own depth: every hole
    /// in it, and every variable it names, is evaluated.
    mutating func arithmetic(closing: [UInt8], construct: String) {
        analysis.beginCollecting()
        var depth = 0
        var scratch = ShellWord()
        let opening: UInt8 =
            closing.first == UInt8(ascii: ")")
            ? UInt8(ascii: "(") : closing.first == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
        while let byte = peek() {
            if depth == 0, closing.enumerated().allSatisfy({ peek($0.offset) == $0.element }) {
                advance(closing.count)
                break
            }
            switch byte {
            case opening:
                depth += 1
                advance()
            case closing[0]:
                depth -= 1
                advance()
            case UInt8(ascii: "'"):
                singleQuoted(into: &scratch)
            case UInt8(ascii: "\""):
                advance()
                doubleQuoted(into: &scratch)
            default:
                if Self.isNameStart(byte) {
                    analysis.reference(String(decoding: readName(), as: UTF8.self))
                } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    while let next = peek(), Self.isNameByte(next) { advance() }
                } else {
                    quotedByte(escapable: nil, into: &scratch)
                }
            }
        }
        analysis.evaluates(
            analysis.endCollecting(),
            SiteRefusal(
                construct: construct,
                hint:
                    "the shell evaluates an argument there as an expression, and a[$(cmd)] runs cmd: compute outside the shell, as in $(expr {} + 1)"
            ))
    }

    /// `` `…` ``: its inside is unescaped once (`\\`, `` \` ``, `\$`, and `\"` inside "...") and
    /// read as commands of their own.
    private mutating func backquote(insideDoubleQuotes: Bool) {
        advance()
        let start = position
        var content: [UInt8] = []
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: "`") {
                position += 1
                break
            }
            if byte == UInt8(ascii: "\\"), position + 1 < text.count {
                let next = text[position + 1]
                if "`\\$".utf8.contains(next) || (insideDoubleQuotes && next == UInt8(ascii: "\"")) {
                    content.append(next)
                    position += 2
                    continue
                }
            }
            content.append(byte)
            position += 1
        }
        var inner = ShellLexer(content, holeBase: holeNumber(at: start), analysis: analysis)
        inner.readAll()
        analysis = inner.analysis
    }
}
