import FutureRunModel

/// What the command line asks for.
package enum Invocation: Equatable, Sendable {
    case run(Options)
    case help
    case version
}

/// Turns `argv` into an ``Invocation`` with the declarations of ``OptionDeclaration/all``, the way
/// getopt users expect: options come before the first operand (the command), as with `xargs` and
/// GNU parallel, so `futurerun -j4 make -k ::: make test` passes `-k` to make; after `--each
/// TEMPLATE` every word is an argument, so a file named `-rf.txt` is data. `--` ends the options
/// explicitly. Short options cluster (`-qj4`); long ones take `--name=value` or the next word, and a
/// next word that is itself an option is refused (`--joblog -j4`).
package struct OptionParser {
    private let arguments: [[UInt8]]
    private var index = 0
    private var parsed = ParsedOptions()

    private static let separator = Array(":::".utf8)
    private static let fileSeparator = Array("::::".utf8)
    /// GNU parallel's `:::+` and `::::+`: the list that follows is paired with the one before.
    private static let linkedSeparator = Array(":::+".utf8)
    private static let linkedFileSeparator = Array("::::+".utf8)

    /// - Parameter arguments: `argv` without the program name, as bytes.
    /// - Parameter grammar: GNU parallel's when futurerun runs as `parallel`; `--gnu` among the
    ///   options (before the first source) asks for it too.
    package init(_ arguments: [[UInt8]], grammar: Options.Grammar = .native) {
        self.arguments = arguments
        let sources = arguments.firstIndex { $0 == Self.separator || $0 == Self.fileSeparator } ?? arguments.count
        if grammar == .gnu || arguments[..<sources].contains(Array("--gnu".utf8)) {
            parsed.options.grammar = .gnu
            parsed.options.emptyLinesAreJobs = true
        }
    }

    package static func parse(_ arguments: [[UInt8]], grammar: Options.Grammar = .native) throws(UsageError) -> Invocation {
        var parser = OptionParser(arguments, grammar: grammar)
        return try parser.parse()
    }

    private var readsGNU: Bool { parsed.options.grammar == .gnu }

    package mutating func parse() throws(UsageError) -> Invocation {
        while index < arguments.count, !parsed.optionsEnded {
            let word = ArgumentText.decode(arguments[index])
            if word == "--" {
                index += 1
                break
            }
            guard word.hasPrefix("-"), word != "-" else { break }
            index += 1
            if word.hasPrefix("--") { try parseLong(word) } else { try parseShort(word) }
            if let answer = parsed.answer { return answer }
        }
        // `--each TEMPLATE -- ARG...`: the `--` only says that the arguments begin. Without it, a
        // word spelled as one of futurerun's long options is a misplaced option, not a file.
        if parsed.optionsEnded, index < arguments.count, arguments[index] == Array("--".utf8) {
            index += 1
        } else if parsed.optionsEnded, !readsGNU,
            let option = arguments[index...].lazy.map(ArgumentText.decode).first(where: Self.isLongOption)
        {
            throw .optionAfterTemplate(option)
        }
        parsed.options.source =
            try readsGNU ? gnuSource(operands: Array(arguments[index...])) : makeSource(operands: Array(arguments[index...]))
        // GNU parallel's stderr carries the jobs' stderr only, unless progress is asked for.
        if readsGNU, parsed.options.progress != .on { parsed.options.quiet = true }
        try checkCombinations()
        return .run(parsed.options)
    }

    // MARK: Options

    /// The option spelled `word` (`--jobs`, dashes included), found by a scan: a command line names
    /// a few options, and comparing a hundred short names costs less than hashing them all into a
    /// table at every start (most of `--version`'s own work when it did).
    private static func declaration(long word: some StringProtocol) -> OptionDeclaration? {
        guard word.hasPrefix("--") else { return nil }
        let name = word.dropFirst(2)
        return OptionDeclaration.all.first { $0.longNames.contains { $0 == name } }
    }

    /// The option spelled `-letter` (or one of its aliases: `-P` is `-j`).
    private static func declaration(short letter: Character) -> OptionDeclaration? {
        OptionDeclaration.all.first { $0.shortName == letter || $0.shortAliases.contains(letter) }
    }

    /// Whether `word` reads as one of futurerun's options (`-j4`, `--joblog`, `--jobs=2`).
    static func isOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word != "-" else { return false }
        if word == "--" { return true }
        if word.hasPrefix("--") {
            let name = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return declaration(long: name) != nil
        }
        return declaration(short: word.dropFirst().first!) != nil
    }

    /// Whether `word` is one of futurerun's long options as written (`--dry-run`, `--jobs=2`).
    private static func isLongOption(_ word: String) -> Bool {
        word.hasPrefix("--") && word != "--" && isOption(word)
    }

    /// The long names of each option, for abbreviations and suggestions.
    private static let spelling = OptionSpelling(names: OptionDeclaration.all.map { $0.longNames.map { "--" + $0 } })

    /// The option `name` (as typed, `--` included) means: its own name, else one of GNU parallel's
    /// it refuses, else the option it is the unique prefix of; an unknown one says the nearest name.
    private static func declaration(named name: String) throws(UsageError) -> OptionDeclaration? {
        if let exact = declaration(long: name) { return exact }
        if let refusal = GNUForms.refusal(name) { throw refusal }
        let groups = spelling.options(abbreviatedAs: name)
        if groups.count == 1 { return OptionDeclaration.all[groups[0]] }
        if groups.count > 1 {
            throw .ambiguousOption(name, candidates: groups.map { spelling.names[$0].first { $0.hasPrefix(name) }! })
        }
        throw .unknownOption(name, suggestion: spelling.suggestion(for: name))
    }

    private mutating func parseLong(_ word: String) throws(UsageError) {
        var name = word
        var inlineValue: String?
        if let equals = word.firstIndex(of: "=") {
            name = String(word[..<equals])
            inlineValue = String(word[word.index(after: equals)...])
        }
        if readsGNU, name == "--quote" {
            parsed.options.quotesCommand = true
            return
        }
        guard let declaration = try Self.declaration(named: name) else { throw .unknownOption(name) }
        if declaration.value == nil {
            if let inlineValue { throw .invalidValue(option: name, value: inlineValue, expected: "no value (it is a switch)") }
            try apply(declaration, nil, as: name)
        } else if let inlineValue {
            try apply(declaration, inlineValue, as: name)
        } else {
            try apply(declaration, try nextValue(for: name, declaration), as: name)
        }
    }

    private mutating func parseShort(_ word: String) throws(UsageError) {
        var letters = Substring(word.dropFirst())
        while let letter = letters.first {
            letters = letters.dropFirst()
            // GNU parallel's -q is --quote and its -C is --colsep.
            if readsGNU, letter == "q" {
                parsed.options.quotesCommand = true
                continue
            }
            // GNU parallel's -v prints on stdout (its --verbose, like -t, on stderr).
            if readsGNU, letter == "v" { parsed.options.verboseOnStdout = true }
            let found = readsGNU && letter == "C" ? Self.declaration(long: "--colsep") : Self.declaration(short: letter)
            guard let declaration = found else {
                throw GNUForms.refusal("-\(letter)") ?? .unknownOption("-\(letter)")
            }
            guard declaration.value != nil else {
                try apply(declaration, nil, as: "-\(letter)")
                if parsed.answer != nil { return }
                continue
            }
            // The rest of the word is the value (`-j4`), else the next word (`-j 4`).
            let value = try letters.isEmpty ? nextValue(for: "-\(letter)", declaration) : String(letters)
            try apply(declaration, value, as: "-\(letter)")
            return
        }
    }

    /// Applies the option; a bad value is reported under the name the user typed (`-j`, not `--jobs`).
    private mutating func apply(_ declaration: OptionDeclaration, _ value: String?, as typed: String) throws(UsageError) {
        do {
            try declaration.effect(&parsed, value)
        } catch .invalidValue(_, let value, let expected) {
            throw .invalidValue(option: typed, value: value, expected: expected)
        }
    }

    private mutating func nextValue(for option: String, _ declaration: OptionDeclaration) throws(UsageError) -> String {
        guard index < arguments.count else {
            if declaration.longNames[0] == "each" { throw .noTemplate }
            throw .missingValue(option: option, example: declaration.example)
        }
        let value = ArgumentText.decode(arguments[index])
        if Self.isOption(value) {
            throw .optionAsValue(
                option: option, placeholder: declaration.value!.placeholder, value: value,
                longOption: option.hasPrefix("--") ? option : "--" + declaration.longNames[0])
        }
        index += 1
        return value
    }

    // MARK: Operands

    /// GNU parallel's operands: the command's words, then `:::`/`::::` sources; no source means
    /// stdin lines (or `-a` files) are the arguments; no command means each argument is a command.
    /// The same ``Options/Source`` as futurerun's own grammar makes, so everything after is shared.
    private mutating func gnuSource(operands: [[UInt8]]) throws(UsageError) -> Options.Source {
        if parsed.options.pipe != nil { return try makeSource(operands: operands) }
        let separators = [Self.separator, Self.fileSeparator, Self.linkedSeparator, Self.linkedFileSeparator]
        let split = operands.firstIndex(where: separators.contains) ?? operands.count
        let words = operands[..<split]
        let sources = Array(operands[split...])
        guard !words.isEmpty else {
            if sources.isEmpty { return .commandLines(file: parsed.argumentFiles.first) }
            let (lists, _) = try Self.argumentLists(sources)
            guard lists.count == 1 else {
                throw .needsOption(
                    option: ":::", needs: "a command with several lists (without one, each argument is a command)",
                    example: "parallel echo ::: a b ::: c d")
            }
            switch lists[0] {
            case .words(let commands): return .commands(commands)
            case .file(let path): return .commandLines(file: path)
            }
        }
        let command = words.map { parsed.options.quotesCommand ? ShellQuoting.word($0) : $0 }.joined(separator: [0x20])
        parsed.template = Array(command)
        return try makeSource(operands: sources)
    }

    private func makeSource(operands: [[UInt8]]) throws(UsageError) -> Options.Source {
        if let mode = parsed.options.pipe { return try blockSource(mode, operands: operands) }
        if let template = parsed.template {
            if operands.isEmpty {
                let files = parsed.argumentFiles
                // Several -a files are lists, combined (or paired with --link), as in GNU parallel.
                if files.count > 1 { return .template(template, lists: files.map { .file($0) }, linked: []) }
                return .templateLines(template, file: files.first)
            }
            if !parsed.argumentFiles.isEmpty { throw .conflictingOptions("-a/--arg-file", "arguments after the template") }
            let (lists, linked) = try Self.argumentLists(operands)
            if lists.count == 1, case .file(let path) = lists[0] { return .templateLines(template, file: path) }
            return .template(template, lists: lists, linked: linked)
        }
        if operands.first == Self.fileSeparator {
            guard operands.count == 2, parsed.argumentFiles.isEmpty else { throw .jobFileSeparatorMisused }
            return .commandLines(file: ArgumentText.decode(operands[1]))
        }
        if parsed.argumentFiles.count > 1 {
            throw .needsOption(
                option: "-a given twice", needs: "--each (each file is then a list of arguments)",
                example: "futurerun --each 'echo {1} {2}' -a a.txt -a b.txt")
        }
        if operands.isEmpty { return .commandLines(file: parsed.argumentFiles.first) }
        if !parsed.argumentFiles.isEmpty {
            throw .conflictingOptions("-a/--arg-file", "a command (use --each TEMPLATE -a FILE for one job per line)")
        }
        if operands.contains(Self.fileSeparator) { throw .jobFileSeparatorMisused }
        if let linked = operands.first(where: { $0 == Self.linkedSeparator || $0 == Self.linkedFileSeparator }) {
            throw .needsOption(
                option: String(decoding: linked, as: UTF8.self), needs: "--each (it pairs argument lists)",
                example: "futurerun --each 'echo {1} {2}' ::: A B :::+ x y")
        }
        if operands.first == Self.separator {
            // GNU parallel's `parallel ::: 'cmd1' 'cmd2'`: here the words before ':::' are the first command.
            throw .gnuForm(
                form: "':::' before the commands",
                instead: "futurerun's commands are separated by ':::', as in futurerun 'echo 1' ::: 'echo 2'")
        }
        let segments = operands.split(separator: Self.separator, omittingEmptySubsequences: false)
        var commands: [[UInt8]] = []
        for (position, segment) in segments.enumerated() {
            guard !segment.isEmpty else { throw .emptySegment(position: position + 1) }
            commands.append(Array(segment.joined(separator: [0x20])))
        }
        return .commands(commands)
    }

    /// `--pipe` and `--pipe-part`: one command, the words given (as GNU parallel joins them), with
    /// the blocks of stdin, of one `-a FILE`, or of the file `--pipe-part` cuts (`-a FILE` or
    /// `:::: FILE`).
    private func blockSource(_ mode: Options.PipeMode, operands: [[UInt8]]) throws(UsageError) -> Options.Source {
        let option = mode == .stream ? "--pipe" : "--pipe-part"
        if parsed.template != nil { throw .conflictingOptions(option, "--each (the command takes a block, not arguments)") }
        var words = operands
        var files = parsed.argumentFiles
        if let separator = words.firstIndex(of: Self.fileSeparator) {
            files += words[(separator + 1)...].map(ArgumentText.decode)
            words = Array(words[..<separator])
        }
        guard !words.isEmpty else {
            throw .needsOption(
                option: option, needs: "a command to give each block to", example: "futurerun \(option) wc -l < big.txt")
        }
        let separators = [Self.separator, Self.linkedSeparator, Self.linkedFileSeparator]
        if words.contains(where: separators.contains) {
            throw .invalidValue(option: option, value: ":::", expected: "one command: each job is that command with its block")
        }
        guard files.count <= 1 else { throw .invalidValue(option: option, value: files[1], expected: "one file to cut") }
        if mode == .fileParts, files.first == nil || files.first == "-" {
            throw .needsOption(
                option: "--pipe-part", needs: "-a FILE (a file it can seek in, not stdin)",
                example: "futurerun --pipe-part -a big.csv wc -l")
        }
        return .blocks(Array(words.joined(separator: [0x20])), file: files.first)
    }

    /// The lists of `--each`: words up to the first separator, then one list per `:::` and one per
    /// file after `::::` (as GNU parallel: `:::: a b` is two lists); `:::+` and `::::+` start lists
    /// paired with the one before. Returns the lists and the indices of the paired ones.
    private static func argumentLists(_ operands: [[UInt8]]) throws(UsageError) -> ([Options.ArgumentList], Set<Int>) {
        enum Reading {
            case nothing
            case words
            case files(count: Int)
        }
        var lists: [Options.ArgumentList] = []
        var linked: Set<Int> = []
        var words: [[UInt8]] = []
        let separators = [separator, fileSeparator, linkedSeparator, linkedFileSeparator]
        var reading: Reading = operands.first.map(separators.contains) == true ? .nothing : .words
        func close() throws(UsageError) {
            switch reading {
            case .nothing: break
            case .words:
                guard !words.isEmpty else { throw .emptySegment(position: lists.count + 1) }
                lists.append(.words(words))
                words = []
            case .files(let count):
                guard count > 0 else { throw .emptySegment(position: lists.count + 1) }
            }
        }
        for operand in operands {
            if operand == separator || operand == linkedSeparator {
                try close()
                reading = .words
            } else if operand == fileSeparator || operand == linkedFileSeparator {
                try close()
                reading = .files(count: 0)
            } else if case .files(let count) = reading {
                lists.append(.file(ArgumentText.decode(operand)))
                reading = .files(count: count + 1)
            } else {
                words.append(operand)
            }
            if operand == linkedSeparator || operand == linkedFileSeparator {
                guard !lists.isEmpty else {
                    throw .invalidValue(
                        option: String(decoding: operand, as: UTF8.self), value: "first",
                        expected: "a list before it to pair with, as in ::: A B :::+ x y")
                }
                linked.insert(lists.count)
            }
        }
        try close()
        return (lists, linked)
    }

    /// Settles what one option means beside another, then checks that they go together.
    private mutating func checkCombinations() throws(UsageError) {
        // GNU's `-k --line-buffer`: the oldest job streams, the rest wait their turn, which is
        // futurerun's ordered output.
        if parsed.options.keepOrder, parsed.options.live, parsed.options.liveMode == .lines { parsed.options.live = false }
        try parsed.options.validate()
    }
}
