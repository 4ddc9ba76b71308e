import FutureRunModel

/// Whether a job's shell line can run in its slot's warm shell (``WarmShells``), and how.
///
/// A line runs **in** the warm shell, with no process of its own, only when nothing of it can
/// outlast it there: a list (`;`, `&&`, `||`, `|`) of simple commands, each `echo`, `printf`
/// (without `-v`), `test`/`[` (with fixed arguments), `true`, `false`, `:`, or a program found in
/// `PATH`, with words that are plain, quoted, or expand `$name`, `${name}` or `$?` — no
/// assignment but futurerun's own `_frN=` (each job sets them before it reads them), no
/// redirection, no substitution, no function, no keyword. There its error messages are the ones
/// a fresh shell prints (the shell's `eval` keeps them at line 1), and it leaves no state behind.
///
/// With `everyIsolatable` (futurerun's own switch, `FUTURERUN_WARM_SHELLS=all`, for proving the
/// isolation), every other line runs in a subshell of the warm shell, whose state ends with it,
/// except what a subshell cannot isolate: a background job (`&`, which would outlive its frame),
/// `$$` (the warm shell's own process) and `trap` (a stop reaches the warm shell, not the
/// subshell that ignores it). Those keep a fresh shell. A plain value; tested
/// without processes.
package struct WarmShellFit: Sendable {
    package enum Way: Equatable, Sendable {
        /// Evaluated by the warm shell itself, with its builtins alone: no program runs, so the
        /// job ends at once (another may wait behind it in the shell's pipe).
        case builtins
        /// Evaluated by the warm shell itself.
        case inShell
        /// Evaluated in a subshell of the warm shell.
        case inSubshell
    }

    /// The programs a command name may run, and the shell's own names it must not be.
    package let commands: DirectExec
    var everyIsolatable = false
    /// Whether a slot's shell may be sent jobs behind its running one (``WarmShells/behind``):
    /// not with `--halt`, which must start nothing once it halts, nor `--delay`, which spaces
    /// each start.
    package var queuesBehind = true

    /// Whether jobs may run in warm shells: only where attempts run as this machine's processes
    /// (`runsHere`, ``LaunchTraits/runsHere``), in `sh`, dash or bash (not with
    /// `BASH_ENV`, which bash reads at each start), and not with `--timeout` or admission rules,
    /// which act on a job's own process. `FUTURERUN_WARM_SHELLS=off` turns them off, `=all` runs
    /// every isolatable line in one (``everyIsolatable``).
    package static func forRun(_ options: Options, runsHere: Bool, facts: SystemFacts) -> WarmShellFit? {
        let environment = facts.environment
        let shell = options.shell.split(separator: "/").last.map(String.init) ?? ""
        let setting = environment[SystemFacts.warmShellsVariable]
        guard runsHere, options.timeout == nil, options.memoryFree == nil,
            options.memorySuspend == nil, options.load == nil, ["sh", "dash", "bash"].contains(shell), setting != "off",
            shell != "bash" || (environment["BASH_ENV"] ?? "").isEmpty
        else { return nil }
        return WarmShellFit(
            commands: DirectExec(exportedFunctions: facts.bashFunctions), everyIsolatable: setting == "all",
            queuesBehind: options.halt.urgency == .never && options.delay == nil)
    }

    /// How `line` runs in a warm shell; `nil`: in a fresh one.
    package func way(for line: [UInt8]) -> Way? {
        if let commands = Self.simpleCommands(of: line), commands.allSatisfy(leavesNothing) {
            return commands.allSatisfy(runsNoProgram) ? .builtins : .inShell
        }
        guard everyIsolatable, Self.isolatable(line) else { return nil }
        return .inSubshell
    }

    /// Builtins that change nothing of the shell, whatever their (fixed) arguments.
    private static let harmlessBuiltins: Set<[UInt8]> = ["echo", "printf", "test", "[", "true", "false", ":"].map {
        Array($0.utf8)
    }.reduce(into: []) { $0.insert($1) }

    private func leavesNothing(_ command: [Word]) -> Bool {
        let assignments = command.prefix(while: \.isOwnAssignment)
        if assignments.count == command.count { return true }
        guard assignments.isEmpty, let name = command[0].plain else { return false }
        let arguments = command.dropFirst()
        if Self.harmlessBuiltins.contains(name) {
            switch String(decoding: name, as: UTF8.self) {
            // bash's `printf -v` assigns; `test -v a[i=1]` evaluates a subscript.
            case "printf": return arguments.first.map { $0.value != nil && $0.value != Array("-v".utf8) } ?? true
            case "test", "[":
                return arguments.allSatisfy { $0.value != nil && $0.value != Array("-v".utf8) && $0.value != Array("-R".utf8) }
            default: return true
            }
        }
        return commands.runsProgram(name)
    }

    /// Whether `command` (one that ``leavesNothing(_:)``) is a builtin or futurerun's own
    /// assignments: no program. A pipeline of them still forks; it ends as soon.
    private func runsNoProgram(_ command: [Word]) -> Bool {
        guard let name = command.first(where: { !$0.isOwnAssignment })?.plain else { return true }
        return Self.harmlessBuiltins.contains(name)
    }

    /// Whether a subshell ends everything of `line`: no `&` that starts a background job, no `$$`,
    /// no `trap` that sets one (a job that handles or ignores a signal must be the shell a stop
    /// reaches first; `$(trap)` only lists them).
    private static func isolatable(_ line: [UInt8]) -> Bool {
        var rest = line[...]
        while let found = rest.firstRange(of: "trap".utf8) {
            rest = rest[found.upperBound...]
            let wordBefore = found.lowerBound > line.startIndex && ShellLexer.isNameByte(line[found.lowerBound - 1])
            guard !wordBefore, let after = rest.first, after == 0x20 || after == 0x09 else { continue }
            // `trap` with an action sets one; alone, with `-p` or `-l`, it lists.
            let next = rest.first { $0 != 0x20 && $0 != 0x09 }
            if let next, ![UInt8(ascii: ")"), UInt8(ascii: ";"), UInt8(ascii: "-"), 0x0A].contains(next) { return false }
        }
        for index in line.indices {
            let byte = line[index]
            let before = index > 0 ? line[index - 1] : 0
            let after = index + 1 < line.count ? line[index + 1] : 0
            if byte == UInt8(ascii: "$"), after == UInt8(ascii: "$") { return false }
            // `&&`, `>&`, `<&`, `&>`: no background job.
            if byte == UInt8(ascii: "&"), ![UInt8(ascii: "&"), UInt8(ascii: ">"), UInt8(ascii: "<")].contains(before),
                ![UInt8(ascii: "&"), UInt8(ascii: ">")].contains(after)
            {
                return false
            }
        }
        return true
    }

    /// A word of a simple command.
    package struct Word {
        /// Its bytes as typed.
        package var text: [UInt8] = []
        /// Its value, if it expands nothing (quotes removed).
        package var value: [UInt8]? = []
        /// Written without quote, escape or expansion: a command name as it is looked up.
        package var isPlain = true
        /// An unquoted `[` was read: an unquoted `]` makes the word a glob.
        var opensBracket = false

        package var plain: [UInt8]? { isPlain ? value : nil }

        /// `_frN=…`: futurerun's own variable for a quoted argument.
        var isOwnAssignment: Bool {
            guard let equals = text.firstIndex(of: UInt8(ascii: "=")), text.starts(with: "_fr".utf8) else { return false }
            let digits = text[3..<equals]
            return !digits.isEmpty && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
    }

    /// The simple commands of `line`, if it is a list of them in the small grammar above; `nil`
    /// for anything else.
    static func simpleCommands(of line: [UInt8]) -> [[Word]]? {
        var commands: [[Word]] = []
        var words: [Word] = []
        var word: Word?
        var index = 0

        func endWord() {
            if let finished = word { words.append(finished) }
            word = nil
        }
        func endCommand() -> Bool {
            endWord()
            guard !words.isEmpty else { return false }
            commands.append(words)
            words = []
            return true
        }

        while index < line.count {
            let byte = line[index]
            let start = index
            var current = word ?? Word()
            switch byte {
            case 0x20, 0x09:
                endWord()
                index += 1
                continue
            case UInt8(ascii: ";"):
                guard endCommand(), index + 1 >= line.count || line[index + 1] != byte else { return nil }
                index += 1
                continue
            case UInt8(ascii: "|"), UInt8(ascii: "&"):
                let doubled = index + 1 < line.count && line[index + 1] == byte
                guard endCommand(), doubled || byte == UInt8(ascii: "|") else { return nil }
                if doubled { index += 1 }
                guard index + 1 < line.count, line[index + 1] != UInt8(ascii: "&") else { return nil }
                index += 1
                continue
            case UInt8(ascii: "'"):
                guard let close = line[(index + 1)...].firstIndex(of: byte) else { return nil }
                current.quoted(line[(index + 1)..<close])
                index = close
            case UInt8(ascii: "\\"):
                guard index + 1 < line.count, line[index + 1] != 0x0A else { return nil }
                current.quoted(line[(index + 1)...(index + 1)])
                index += 1
            case UInt8(ascii: "\""):
                guard let close = doubleQuoted(line, from: index + 1, into: &current) else { return nil }
                index = close
            case UInt8(ascii: "$"):
                guard let end = expansion(line, at: index) else { return nil }
                current.expanded()
                index = end - 1
            case UInt8(ascii: "#") where word == nil:
                return nil
            case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "~"):
                // A glob or a tilde: its value is the shell's to find.
                current.expanded()
            case UInt8(ascii: "]") where current.opensBracket:
                current.expanded()
            case UInt8(ascii: "["):
                // A bracket glob if a `]` closes it; `[` alone is test's name.
                current.value?.append(byte)
                current.opensBracket = true
            case 0x0A, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "`"):
                return nil
            default:
                current.value?.append(byte)
            }
            current.text += line[start...index]
            word = current
            index += 1
        }
        endWord()
        if !words.isEmpty { commands.append(words) }
        return commands.isEmpty ? nil : commands
    }

    /// The index of the `"` that closes the string opening before `start`, its content added to
    /// `word`; `nil` if it holds what the grammar leaves out (`` ` ``, `$(`…) or never closes.
    private static func doubleQuoted(_ line: [UInt8], from start: Int, into word: inout Word) -> Int? {
        var index = start
        word.isPlain = false
        while index < line.count {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "\""):
                return index
            case UInt8(ascii: "\\"):
                guard index + 1 < line.count, line[index + 1] != 0x0A else { return nil }
                let next = line[index + 1]
                // Inside double quotes a backslash escapes only these.
                word.quoted("$`\"\\".utf8.contains(next) ? [next] : [byte, next])
                index += 1
            case UInt8(ascii: "$"):
                guard let end = expansion(line, at: index) else { return nil }
                word.expanded()
                index = end - 1
            case UInt8(ascii: "`"):
                return nil
            default:
                word.quoted([byte])
            }
            index += 1
        }
        return nil
    }

    /// The end of the expansion at `index` (a `$`) if it is `$name`, `${name}` or `$?`.
    private static func expansion(_ line: [UInt8], at index: Int) -> Int? {
        guard index + 1 < line.count else { return nil }
        let next = line[index + 1]
        if next == UInt8(ascii: "?") { return index + 2 }
        if ShellLexer.isNameStart(next) {
            return line[(index + 1)...].firstIndex { !ShellLexer.isNameByte($0) } ?? line.count
        }
        guard next == UInt8(ascii: "{"), index + 2 < line.count,
            let close = line[(index + 2)...].firstIndex(of: UInt8(ascii: "}")),
            ShellLexer.isName(Array(line[(index + 2)..<close]))
        else { return nil }
        return close + 1
    }
}

extension WarmShellFit.Word {
    fileprivate mutating func quoted<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        value?.append(contentsOf: bytes)
        isPlain = false
    }

    fileprivate mutating func expanded() {
        value = nil
        isPlain = false
    }
}
