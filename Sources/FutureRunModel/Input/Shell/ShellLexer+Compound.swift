/// The compound parts of a template: compound array values, `case`, `for`/`select`, `function`,
/// and here-document bodies.
extension ShellLexer {
    /// `a=(…)`: elements can be `[SUBSCRIPT]=VALUE`, and `declare` may read them again as code.
    mutating func compoundValue() {
        analysis.beginCollecting()
        while true {
            skipBlanks()
            guard let byte = peek() else { break }
            if byte == UInt8(ascii: ")") {
                advance()
                break
            }
            if byte == 0x0A {
                advance()
                continue
            }
            if byte == UInt8(ascii: "#") {
                skipComment()
                continue
            }
            _ = word(endingAt: [UInt8(ascii: ")")])
        }
        let data = analysis.endCollecting()
        analysis.evaluates(
            data,
            SiteRefusal(
                construct: "an array's compound assignment (…)",
                hint: "assign the argument to a plain variable first, as in n={}; a=(\"$n\")"))
    }

    /// `case WORD in PATTERN) LIST ;; … esac`: the word and the patterns may carry data.
    mutating func caseCommand() -> End? {
        advance(4)
        skipBlanks()
        _ = word()
        while let byte = peek(), Self.isBlank(byte) || byte == 0x0A { advance() }
        guard atWord("in") else { return nil }
        advance(2)
        while true {
            while let byte = peek(), Self.isBlank(byte) || byte == 0x0A || byte == UInt8(ascii: ";") { advance() }
            guard peek() != nil else { return nil }
            if atWord("esac") {
                advance(4)
                return nil
            }
            if peek() == UInt8(ascii: "#") {
                skipComment()
                continue
            }
            if peek() == UInt8(ascii: "(") { advance() }
            // Patterns, separated by `|`, up to the `)`.
            while let byte = peek(), byte != UInt8(ascii: ")") {
                if Self.isBlank(byte) || byte == UInt8(ascii: "|") || byte == 0x0A {
                    advance()
                } else {
                    _ = word(endingAt: [UInt8(ascii: "|")])
                }
            }
            advance()
            if list(inCase: true) == .esac { return nil }
        }
    }

    /// `for NAME in WORDS`, `select NAME in WORDS`, `for ((…))`: the words may carry data, which
    /// NAME then holds.
    mutating func forCommand() -> End? {
        advance(atWord("for") ? 3 : 6)
        skipBlanks()
        if peek() == UInt8(ascii: "("), peek(1) == UInt8(ascii: "(") {
            advance(2)
            arithmetic(closing: [UInt8(ascii: ")"), UInt8(ascii: ")")], construct: "for ((...))")
            return nil
        }
        let name = word()
        analysis.refuse(name.data.holes, Self.nameRefusal("a for loop's variable"))
        let variable = name.literal.map { String(decoding: $0, as: UTF8.self) }
        skipBlanks()
        while peek() == 0x0A { advance() }
        skipBlanks()
        guard atWord("in") else {
            // `for NAME; do`: the positional parameters.
            if let variable { analysis.assign(variable, CarriedData(names: ["@"])) }
            return nil
        }
        advance(2)
        analysis.beginCollecting()
        while true {
            skipBlanks()
            guard let byte = peek(), byte != 0x0A, byte != UInt8(ascii: ";") else { break }
            _ = word()
        }
        let data = analysis.endCollecting()
        if let variable { analysis.assign(variable, data) }
        return nil
    }

    /// `function NAME`: the body follows as a command.
    mutating func functionKeyword() -> End? {
        advance(8)
        skipBlanks()
        let name = word()
        analysis.refuse(name.data.holes, Self.nameRefusal("a function's name"))
        if let literal = name.literal { analysis.defineFunction(String(decoding: literal, as: UTF8.self)) }
        skipBlanks()
        if peek() == UInt8(ascii: "("), peek(1) == UInt8(ascii: ")") { advance(2) }
        return nil
    }

    /// After each here-document's announcing line: its body, up to the delimiter line.
    mutating func readHereDocuments() {
        while !pendingHereDocuments.isEmpty {
            let document = pendingHereDocuments.removeFirst()
            hereDocumentBody(document)
        }
    }

    mutating func hereDocumentBody(_ document: HereDocument) {
        while position < text.count {
            var lineStart = position
            if document.stripsTabs { while lineStart < text.count, text[lineStart] == 0x09 { lineStart += 1 } }
            let lineEnd = text[lineStart...].firstIndex(of: 0x0A) ?? text.count
            if Array(text[lineStart..<lineEnd]) == document.delimiter {
                position = min(lineEnd + 1, text.count)
                return
            }
            if document.expands {
                // As inside "...", with `"` plain; an escaped newline joins the next line.
                while let byte = peek(), byte != 0x0A {
                    if byte == UInt8(ascii: "\"") {
                        advance()
                    } else {
                        quotedByte(escapable: "$`\\")
                    }
                }
                if peek() == 0x0A { advance() }
            } else {
                while position < text.count, text[position] != 0x0A {
                    if text[position] == Self.hole {
                        let number = holeNumber(at: position)
                        analysis.hole(number)
                        analysis.refuse(
                            [number],
                            SiteRefusal(
                                construct: "a quoted here-document (<<'\(String(decoding: document.delimiter, as: UTF8.self))')",
                                hint: "nothing expands there; leave the delimiter unquoted"))
                    }
                    position += 1
                }
                if position < text.count { position += 1 }
            }
        }
    }
}
