/// What the command line asks for.
public enum Invocation: Equatable, Sendable {
    case run(Options)
    case help
    case version
}

/// Turns `argv` into an ``Invocation``. Options come before the first operand (the command), as with
/// `xargs` and GNU parallel: `futurerun -j4 make -k ::: make test` passes `-k` to make. `--` ends
/// the options explicitly.
public struct OptionParser {
    private var arguments: [[UInt8]]
    private var index = 0
    private var options = Options()
    private var template: [UInt8]?
    private var argumentFile: String?

    /// - Parameter arguments: `argv` without the program name, as bytes.
    public init(_ arguments: [[UInt8]]) {
        self.arguments = arguments
    }

    public init(_ arguments: [String]) {
        self.init(arguments.map { Array($0.utf8) })
    }

    public static func parse(_ arguments: [[UInt8]]) throws(UsageError) -> Invocation {
        var parser = OptionParser(arguments)
        return try parser.parse()
    }

    public mutating func parse() throws(UsageError) -> Invocation {
        while index < arguments.count {
            let argument = String(decoding: arguments[index], as: UTF8.self)
            if argument == "--" {
                index += 1
                break
            }
            guard argument.hasPrefix("-"), argument != "-", argument != ":::" else { break }
            index += 1
            if argument.hasPrefix("--") {
                if let action = try parseLong(argument) { return action }
            } else if let action = try parseShort(argument) {
                return action
            }
        }
        options.source = try makeSource(operands: Array(arguments[index...]))
        return .run(options)
    }

    // MARK: Options

    private mutating func parseLong(_ argument: String) throws(UsageError) -> Invocation? {
        var name = argument
        var inlineValue: String?
        if let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        }
        func value(_ example: String) throws(UsageError) -> String {
            if let inlineValue { return inlineValue }
            return try nextValue(for: name, example: example)
        }
        func noValue() throws(UsageError) {
            if inlineValue != nil {
                throw .invalidValue(option: name, value: inlineValue!, expected: "no value (it is a switch)")
            }
        }
        switch name {
        case "--help": try noValue(); return .help
        case "--version": try noValue(); return .version
        case "--jobs": options.jobs = try Self.jobs(try value("--jobs 4"), option: name)
        case "--arg-file": argumentFile = try value("--arg-file jobs.txt")
        case "--each":
            guard inlineValue != nil || index < arguments.count else { throw .noTemplate }
            template = Array(try value("--each 'gzip {}'").utf8)
        case "--link": try noValue(); options.link = true
        case "--null": try noValue(); options.nullSeparated = true
        case "--shell": options.shell = try value("--shell /bin/bash")
        case "--quiet": try noValue(); options.quiet = true
        case "--verbose": try noValue(); options.verbose = true
        case "--tag": try noValue(); options.tag = true
        case "--live", "--line-buffer": try noValue(); options.live = true
        case "--names": options.names = try value("--names lint,test").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case "--color", "--colour": options.color = try Self.choice(try value("--color never"), option: name)
        case "--progress": try noValue(); options.progress = .on
        case "--no-progress": try noValue(); options.progress = .off
        case "--quiet-success": try noValue(); options.quietSuccess = true
        case "--ci": options.ci = try Self.choice(try value("--ci github"), option: name)
        case "--timeout": options.timeout = try Self.duration(try value("--timeout 30s"), option: name)
        case "--grace": options.grace = try Self.duration(try value("--grace 5s"), option: name)
        case "--delay": options.delay = try Self.duration(try value("--delay 100ms"), option: name)
        case "--retries": options.retries = try Self.count(try value("--retries 2"), option: name)
        case "--fail-fast": try noValue(); options.halt = .failFast
        case "--halt": options.halt = try Self.halt(try value("--halt now,fail=1"), option: name)
        case "--workdir": options.workingDirectory = try value("--workdir build")
        case "--dry-run": try noValue(); options.dryRun = true
        case "--joblog": options.jobLog = try value("--joblog jobs.log")
        case "--json": options.json = try value("--json jobs.jsonl")
        case "--junit": options.junit = try value("--junit report.xml")
        case "--results": options.results = try value("--results out")
        default: throw .unknownOption(name)
        }
        return nil
    }

    private mutating func parseShort(_ argument: String) throws(UsageError) -> Invocation? {
        var letters = Substring(argument.dropFirst())
        while let letter = letters.first {
            letters = letters.dropFirst()
            let option = "-\(letter)"
            func value(_ example: String) throws(UsageError) -> String {
                if !letters.isEmpty {
                    defer { letters = "" }
                    return String(letters)
                }
                return try nextValue(for: option, example: example)
            }
            switch letter {
            case "h": return .help
            case "j": options.jobs = try Self.jobs(try value("-j4"), option: option)
            case "a": argumentFile = try value("-a jobs.txt")
            case "C": options.workingDirectory = try value("-C build")
            case "0": options.nullSeparated = true
            case "q": options.quiet = true
            case "v": options.verbose = true
            default: throw .unknownOption(option)
            }
        }
        return nil
    }

    private mutating func nextValue(for option: String, example: String) throws(UsageError) -> String {
        guard index < arguments.count else { throw .missingValue(option: option, example: example) }
        defer { index += 1 }
        return String(decoding: arguments[index], as: UTF8.self)
    }

    // MARK: Values

    static func jobs(_ text: String, option: String) throws(UsageError) -> Options.Jobs {
        let expected = "a number of jobs (4), 0 for no limit, or a share of the CPUs (50%)"
        if text.hasSuffix("%") {
            guard let percent = Int(text.dropLast()), percent > 0 else {
                throw .invalidValue(option: option, value: text, expected: expected)
            }
            return .percentOfCPUs(percent)
        }
        guard let count = Int(text), count >= 0 else { throw .invalidValue(option: option, value: text, expected: expected) }
        return .count(count)
    }

    static func duration(_ text: String, option: String) throws(UsageError) -> Duration {
        guard let duration = Duration.parse(text) else {
            throw .invalidValue(option: option, value: text, expected: "a duration such as 500ms, 30s, 5m or 1h")
        }
        return duration
    }

    static func count(_ text: String, option: String) throws(UsageError) -> Int {
        guard let count = Int(text), count >= 0 else {
            throw .invalidValue(option: option, value: text, expected: "a whole number, 0 or more")
        }
        return count
    }

    static func choice<Choice: RawRepresentable>(_ text: String, option: String) throws(UsageError) -> Choice
    where Choice.RawValue == String {
        guard let choice = Choice(rawValue: text) else {
            let expected: String =
                switch Choice.self {
                case is Options.Color.Type: "auto, always or never"
                default: "auto, github, gitlab or none"
                }
            throw .invalidValue(option: option, value: text, expected: expected)
        }
        return choice
    }

    /// `now`, `soon`, `now,fail=N`, `soon,fail=N%`, `now,success=N`, `never`.
    static func halt(_ text: String, option: String) throws(UsageError) -> HaltPolicy {
        let invalid = UsageError.invalidValue(
            option: option, value: text, expected: "never, now, soon, or now|soon,fail=N|fail=N%|success=N")
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
        default: throw invalid
        }
    }

    // MARK: Operands

    private func makeSource(operands: [[UInt8]]) throws(UsageError) -> Options.Source {
        let separator = Array(":::".utf8)
        if let template {
            if operands.isEmpty { return .templateLines(template, file: argumentFile) }
            if argumentFile != nil { throw .conflictingOptions("-a/--arg-file", "arguments after the template") }
            var lists = operands.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
            if operands.first == separator { lists.removeFirst() }
            if let empty = lists.firstIndex(where: \.isEmpty) { throw .emptySegment(position: empty + 1) }
            return .template(template, lists: lists)
        }
        if operands.isEmpty { return .commandLines(file: argumentFile) }
        if argumentFile != nil {
            throw .conflictingOptions("-a/--arg-file", "a command (use --each TEMPLATE -a FILE for one job per line)")
        }
        let segments = operands.split(separator: separator, omittingEmptySubsequences: false)
        var commands: [[UInt8]] = []
        for (position, segment) in segments.enumerated() {
            guard !segment.isEmpty else { throw .emptySegment(position: position + 1) }
            commands.append(Array(segment.joined(separator: [0x20])))
        }
        return .commands(commands)
    }
}
