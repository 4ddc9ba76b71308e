extension ShellLexer {
    /// A simple command's words (assignments and redirections already read): what its name makes
    /// of the arguments (``CommandRole``).
    package mutating func command(_ words: [ShellWord]) {
        var words = words[...]
        while let name = words.first?.literal, CommandRole.of(name) == .wrapper {
            words = words.dropFirst()
            while let option = words.first?.literal, option.first == UInt8(ascii: "-") { words = words.dropFirst() }
        }
        guard let nameWord = words.first else { return }
        let arguments = Array(words.dropFirst())
        let data = arguments.reduce(CarriedData()) { $0 + $1.data }
        if !nameWord.data.holes.isEmpty, nameWord.unquoted.contains(UInt8(ascii: "=")) {
            // Written bare, an argument could make this word an assignment.
            analysis.writeAsReferences(nameWord.data.holes)
        }
        guard let name = nameWord.literal else {
            if nameWord.unquoted.contains(UInt8(ascii: "/")) { return }
            return analysis.evaluates(
                data,
                SiteRefusal(
                    construct: "the arguments of a command whose name is known only when the job runs",
                    hint: "it could be let or declare, which evaluate names; write the command's name in the template"))
        }
        let nameText = String(decoding: name, as: UTF8.self)
        analysis.call(nameText, with: data)
        let takesNames = SiteRefusal(
            construct: "the arguments of \(nameText), which reads them as names or expressions",
            hint: "bash evaluates a name's subscript, and x[$(cmd)] runs cmd: write names in the template, as in read -r line")
        switch CommandRole.of(name) {
        case .ordinary, .wrapper:
            return
        case .takesNames:
            analysis.evaluates(nameText == "let" ? arguments.reduce(CarriedData()) { $0 + $1.asExpression } : data, takesNames)
        case .reads:
            analysis.evaluates(data, takesNames)
            for argument in arguments {
                if let target = argument.literal, Self.isName(target) {
                    analysis.reads(into: String(decoding: target, as: UTF8.self))
                }
            }
            for target in ["REPLY", "MAPFILE"] { analysis.reads(into: target) }
        case .declares:
            declaration(arguments, refusal: takesNames)
        case .printf:
            printf(arguments)
        case .test:
            let operands = nameText == "[" && arguments.last?.literal == Array("]".utf8) ? Array(arguments.dropLast()) : arguments
            test(operands, inConditional: false)
        case .set:
            // Options, then (after `--` or the first word that cannot be one) positional parameters.
            var index = 0
            while index < arguments.count, arguments[index].mayBeOption {
                if arguments[index].literal == Array("--".utf8) {
                    index += 1
                    break
                }
                analysis.evaluates(
                    arguments[index].data,
                    SiteRefusal(construct: "set's options", hint: "put the arguments after --, as in set -- {}"))
                index += 1
            }
            analysis.setPositionalParameters(arguments[index...].reduce(CarriedData()) { $0 + $1.data })
        }
    }

    /// `declare` and its kin: `NAME=VALUE` with a literal name and no flags that evaluate values
    /// may carry data in VALUE; every other word is a name.
    private mutating func declaration(_ arguments: [ShellWord], refusal: SiteRefusal) {
        var flags: [UInt8] = []
        for argument in arguments {
            if let literal = argument.literal, literal.first == UInt8(ascii: "-") || literal.first == UInt8(ascii: "+") {
                flags += literal
                continue
            }
            let evaluatesValues = CommandRole.flagsEvaluateValues(flags)
            if let name = argument.assignedName {
                if evaluatesValues { analysis.evaluatesAssignments(to: name) }
                analysis.assign(name, evaluatesValues ? argument.asExpression : argument.data)
                continue
            }
            analysis.evaluates(argument.data, refusal)
            if evaluatesValues, let name = argument.literalText { analysis.evaluatesAssignments(to: name) }
        }
    }

    /// `printf [-v NAME] [--] FORMAT ARGUMENTS`: data before the format could be `-v`.
    private mutating func printf(_ arguments: [ShellWord]) {
        var index = 0
        var target: String?
        while index < arguments.count, arguments[index].mayBeOption {
            guard let literal = arguments[index].literal else {
                analysis.evaluates(
                    arguments[index...].reduce(CarriedData()) { $0 + $1.data },
                    SiteRefusal(
                        construct: "printf's first argument, which could be an option (-v NAME)",
                        hint: "give the format first, as in printf '%s\\n' {}"))
                return
            }
            if literal == Array("--".utf8) {
                index += 1
                break
            }
            if literal == Array("-v".utf8), index + 1 < arguments.count {
                index += 1
                analysis.evaluates(arguments[index].data, Self.nameRefusal("printf -v's name"))
                target = arguments[index].literalText
            } else if literal.starts(with: Array("-v".utf8)) {
                target = String(decoding: literal.dropFirst(2), as: UTF8.self)
            }
            index += 1
        }
        if let target { analysis.assign(target, arguments[index...].reduce(CarriedData()) { $0 + $1.data }) }
    }

    /// `test`, `[` (whose operators are found at run time, by the count of words) and the
    /// clauses of `[[ ]]` (found as the shell parses): an argument may be an operand of a
    /// literal operator that reads strings or files, never an operator, a name (`-v`) or an
    /// arithmetic operand (`-eq`: bash's `[[ ]]`, ksh's and zsh's `test` evaluate it).
    func testClause(_ operands: [ShellWord], inConditional: Bool) -> (evaluated: CarriedData, refusal: SiteRefusal)? {
        var operands = operands[...]
        while operands.count > 1, operands.first?.literalText == "!" { operands = operands.dropFirst() }
        let all = operands.reduce(CarriedData()) { $0 + $1.data }
        let position = SiteRefusal(
            construct:
                "a place of \(inConditional ? "[[ ]]" : "test") where an argument could be an operator (-v evaluates a name)",
            hint: inConditional
                ? "put it after a fixed operator, as in [[ -n {} ]] or [[ {} == x ]]"
                : "put it after a fixed operator, as in [ -n {} ] or [ {} = x ], and join tests with && rather than -a or -o")
        let arithmetic = SiteRefusal(
            construct:
                "an operand of \(inConditional ? "[[ ]]" : "test")'s -eq, -lt, …, which the shell can evaluate as an expression",
            hint: "compare numbers outside the shell, as in expr {} \\> 3, or as strings with =")
        switch operands.count {
        case 0, 1:
            return nil
        case 2:
            guard let operation = operands.first?.literalText else { return (all, position) }
            if TestOperator.naming.contains(operation) { return (all, Self.nameRefusal("the operand of \(operation)")) }
            return TestOperator.unary.contains(operation) ? nil : (all, position)
        case 3:
            let operation = operands[operands.startIndex + 1]
            guard operation.data.isEmpty, let text = operation.literalText else { return (all, position) }
            if TestOperator.arithmetic.contains(text) {
                return (operands.reduce(CarriedData()) { $0 + $1.asExpression }, arithmetic)
            }
            if TestOperator.binary.contains(text) || (!inConditional && ["-a", "-o"].contains(text)) { return nil }
            return (all, position)
        default:
            return (all, position)
        }
    }

    private mutating func test(_ operands: [ShellWord], inConditional: Bool) {
        if let (data, refusal) = testClause(operands, inConditional: inConditional) { analysis.evaluates(data, refusal) }
    }

    /// After `[[`: clauses separated by `&&`, `||`, `!`, `(` and `)`, to `]]`. Its arguments are
    /// written as references, never as bare words (a bare `-eq` would be an operator).
    mutating func conditional() {
        var clause: [ShellWord] = []
        func finish(_ lexer: inout ShellLexer) {
            lexer.analysis.writeAsReferences(clause.flatMap { $0.data.holes })
            if clause.count == 3, clause[1].literalText == "=~" {
                lexer.analysis.assign("BASH_REMATCH", clause[0].data + clause[2].data)
            }
            lexer.test(clause, inConditional: true)
            clause = []
        }
        while true {
            while let byte = peek(), Self.isBlank(byte) || byte == 0x0A { advance() }
            guard let byte = peek() else { break }
            if atWord("]]") {
                advance(2)
                break
            }
            if (byte == UInt8(ascii: "&") && peek(1) == UInt8(ascii: "&"))
                || (byte == UInt8(ascii: "|") && peek(1) == UInt8(ascii: "|"))
            {
                advance(2)
                finish(&self)
            } else if byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") || byte == UInt8(ascii: ";")
                || byte == UInt8(ascii: "|")
                || byte == UInt8(ascii: "&")
            {
                advance()
                finish(&self)
            } else if byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") {
                advance()
                var operation = ShellWord()
                operation.append(byte)
                clause.append(operation)
            } else {
                clause.append(word(regex: clause.last?.literalText == "=~"))
            }
        }
        finish(&self)
    }
}
