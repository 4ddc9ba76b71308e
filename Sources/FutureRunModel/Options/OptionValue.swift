import Glibc

/// The parsers of option values: text in, a value or a ``UsageError`` naming what was expected.
package enum OptionValue {
    /// `-j`'s value, or as GNU parallel decides, an existing file to read it from (`-j FILE`: the
    /// one option value whose meaning depends on the file system, as there).
    package static func jobs(_ text: String, option: String) throws(UsageError) -> Options.Jobs {
        if let first = text.first, !first.isNumber, access(text.systemPath, F_OK) == 0 { return .file(text) }
        return try jobsValue(text, option: option)
    }

    /// `-j`'s value as a number or a share of the CPUs (also what a `-j FILE` holds).
    package static func jobsValue(_ text: String, option: String) throws(UsageError) -> Options.Jobs {
        let expected = "a number of jobs (4), 0 for no limit, a share of the CPUs (50%), or a file holding one"
        if text.hasSuffix("%") {
            guard let percent = Int(text.dropLast()), percent > 0 else {
                throw .invalidValue(option: option, value: text, expected: expected)
            }
            return .percentOfCPUs(percent)
        }
        guard let count = Int(text), count >= 0 else { throw .invalidValue(option: option, value: text, expected: expected) }
        return .count(count)
    }

    package static func duration(_ text: String, option: String) throws(UsageError) -> Duration {
        guard let duration = Duration.parse(text) else {
            throw .invalidValue(option: option, value: text, expected: "a duration such as 500ms, 30s, 5m, 1h or 1m30s")
        }
        return duration
    }

    /// A size in bytes as GNU parallel reads it: a number (fractions too) and a suffix, `K` `M` `G`
    /// `T` `P` (and `Ki` … `Pi`, any case) powers of 1024, `k` `m` `g` `t` `p` powers of 1000.
    /// `text` as bytes, with the escapes `\\n`, `\\t`, `\\r`, `\\0` and `\\\\` read as the bytes they
    /// stand for (a separator on the command line, as GNU parallel's `--recend '\\n'`).
    package static func escapedBytes(_ text: String) -> [UInt8] {
        let escapes: [UInt8: UInt8] = [0x6E: 0x0A, 0x74: 0x09, 0x72: 0x0D, 0x30: 0, 0x5C: 0x5C]
        var bytes: [UInt8] = []
        var escaping = false
        for byte in ArgumentText.bytes(text) {
            if escaping, let meant = escapes[byte] {
                bytes.append(meant)
            } else if escaping {
                bytes += [0x5C, byte]
            } else if byte != 0x5C {
                bytes.append(byte)
            }
            escaping = !escaping && byte == 0x5C
        }
        return escaping ? bytes + [0x5C] : bytes
    }

    package static func byteSize(_ text: String, option: String) throws(UsageError) -> Int {
        let digits = text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        var suffix = String(text.dropFirst(digits.count))
        let binary = suffix.count == 2 && suffix.last.map { "iI".contains($0) } == true
        if binary { suffix.removeLast() }
        let powers: [Character: Int] = ["K": 1, "M": 2, "G": 3, "T": 4, "P": 5]
        let factor: Double
        if suffix.isEmpty {
            factor = 1
        } else if suffix.count == 1, let power = powers[Character(suffix.uppercased())] {
            let base: Double = binary || suffix.first!.isUppercase ? 1024 : 1000
            factor = (0..<power).reduce(1.0) { value, _ in value * base }
        } else {
            factor = 0
        }
        guard let number = Double(digits), factor > 0, number * factor >= 1, number * factor < 0x1p62 else {
            throw .invalidValue(
                option: option, value: text,
                expected: "a size such as 450M, 2G or 1.5g (K M G T: powers of 1024; k m g t: of 1000)")
        }
        return Int(number * factor)
    }

    package static func count(_ text: String, option: String) throws(UsageError) -> Int {
        guard let count = Int(text), count >= 0 else {
            throw .invalidValue(option: option, value: text, expected: "a whole number, 0 or more")
        }
        return count
    }

    /// A whole number of 1 or more (`--slurm-cpus`, `--slurm-rate`).
    package static func positiveCount(_ text: String, option: String) throws(UsageError) -> Int {
        guard let count = Int(text), count >= 1 else {
            throw .invalidValue(option: option, value: text, expected: "a whole number, 1 or more")
        }
        return count
    }

    package static func choice<Choice: RawRepresentable & CaseIterable>(
        _ text: String, option: String
    ) throws(UsageError) -> Choice
    where Choice.RawValue == String {
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue)
            let expected = names.dropLast().joined(separator: ", ") + " or " + names.last!
            throw .invalidValue(option: option, value: text, expected: expected)
        }
        return choice
    }

    /// A `--colsep` pattern, checked now so that a bad one is refused before anything runs.
    package static func columnSeparator(_ text: String) throws(UsageError) -> String {
        guard !text.isEmpty else {
            throw .invalidValue(option: "--colsep", value: text, expected: "a separator or regular expression")
        }
        do {
            _ = try Regex(text)
        } catch {
            throw .invalidValue(option: "--colsep", value: text, expected: "a valid regular expression (\(error))")
        }
        return text
    }

    /// A command as the shell would split it into words: blanks separate words, `'...'` and
    /// `"..."` quote, a backslash escapes the next character (inside double quotes only before
    /// `$`, `` ` ``, `"`, `\` and a newline). No expansion of any kind.
    package static func commandWords(_ text: String, option: String) throws(UsageError) -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                if quote == "\"", !"$`\"\\\n".contains(character) { word!.append("\\") }
                word!.append(character)
                escaped = false
            } else if character == "\\", quote != "'" {
                word = word ?? ""
                escaped = true
            } else if let open = quote {
                if character == open { quote = nil } else { word!.append(character) }
            } else if character == "'" || character == "\"" {
                word = word ?? ""
                quote = character
            } else if character.isWhitespace {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        guard quote == nil, !escaped else {
            throw .invalidValue(option: option, value: text, expected: "a command with its quotes closed, as in 'ssh -F ci.conf'")
        }
        if let finished = word { words.append(finished) }
        guard !words.isEmpty else {
            throw .invalidValue(option: option, value: text, expected: "a command, as in 'ssh -F ci.conf'")
        }
        return words
    }

    /// A shell variable's name: a letter or `_`, then letters, digits and `_`.
    package static func variableName(_ text: String, option: String) throws(UsageError) -> String {
        let isValid =
            text.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && text.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        guard isValid else { throw .invalidValue(option: option, value: text, expected: "a variable name, as in CC or MY_TOKEN") }
        return text
    }

    /// `now`, `soon`, `never`, or `now|soon,fail|success|done=N|N%`, as GNU parallel takes them.
    package static func halt(_ text: String, option: String) throws(UsageError) -> HaltPolicy {
        let invalid = UsageError.invalidValue(
            option: option, value: text, expected: "never, now, soon, now|soon,fail|success|done=N|N%, or 0, 1, 2, -1, -2")
        // GNU parallel's numbers: 0 never; 1, 2: at the first failure, soon or now; -1, -2: at the
        // first success.
        switch text {
        case "0": return .never
        case "1": return HaltPolicy(urgency: .soon, trigger: .failures(1))
        case "2": return HaltPolicy(urgency: .now, trigger: .failures(1))
        case "-1": return HaltPolicy(urgency: .soon, trigger: .successes(1))
        case "-2": return HaltPolicy(urgency: .now, trigger: .successes(1))
        default: break
        }
        let parts = text.split(separator: ",", maxSplits: 1).map(String.init)
        guard let first = parts.first else { throw invalid }
        let urgency: HaltPolicy.Urgency
        switch first {
        case "never": return .never
        case "now": urgency = .now
        case "soon": urgency = .soon
        default: throw invalid
        }
        guard parts.count == 2 else { return HaltPolicy(urgency: urgency, trigger: .failures(1)) }
        let rule = parts[1].split(separator: "=", maxSplits: 1).map(String.init)
        guard rule.count == 2 else { throw invalid }
        var amount = rule[1]
        let isPercent = amount.hasSuffix("%")
        if isPercent { amount.removeLast() }
        guard let number = Int(amount), number > 0 else { throw invalid }
        switch (rule[0], isPercent) {
        case ("fail", false): return HaltPolicy(urgency: urgency, trigger: .failures(number))
        case ("fail", true): return HaltPolicy(urgency: urgency, trigger: .failurePercent(min(number, 100)))
        case ("success", false): return HaltPolicy(urgency: urgency, trigger: .successes(number))
        case ("success", true): return HaltPolicy(urgency: urgency, trigger: .successPercent(min(number, 100)))
        case ("done", false): return HaltPolicy(urgency: urgency, trigger: .done(number))
        case ("done", true): return HaltPolicy(urgency: urgency, trigger: .donePercent(min(number, 100)))
        default: throw invalid
        }
    }
}
