import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// Whether a job's command line needs its shell at all. A line of plain words — nothing the shell
/// would expand, redirect, split on or run itself — whose first word names a program found in
/// `PATH` (or by its path) is run as that program with the words as its arguments, as `xargs` runs
/// commands and as the shell itself would after parsing: one exec less a job, the same program,
/// arguments, environment, exit status and output.
///
/// Only what is certain is taken: words of the bytes below, and the single quotes futurerun
/// writes around arguments (`'a b'`, `'it'\''s'`). Anything else — `$`, quotes of other kinds,
/// globs, `~`, braces, operators, a newline, an assignment, a keyword, a builtin (`echo` and `cd`
/// are the shell's), an exported function — keeps the shell, as does a program not found (the
/// shell says so, with its status). A plain value; tested without processes.
package struct DirectExec: Sendable {
    /// The names a word must not have to be run directly: the shell's keywords and builtins
    /// (dash's and bash's), and the functions the environment exports to bash.
    let shellNames: Set<String>
    private let programs = ProgramFinder()

    package init(exportedFunctions: some Sequence<String> = []) {
        shellNames = Self.keywordsAndBuiltins.union(exportedFunctions)
    }

    /// Whether futurerun may run plain lines itself: only where attempts run as this machine's
    /// processes (`runsHere`, ``LaunchTraits/runsHere``: not on other hosts or in Slurm steps,
    /// whose `PATH` is theirs), not when `--shell` names the shell, not when bash would first read
    /// `BASH_ENV`. The functions bash exported are the facts'.
    package static func forRun(_ options: Options, runsHere: Bool, facts: SystemFacts) -> DirectExec? {
        guard !options.shellGiven, runsHere, (facts.environment["BASH_ENV"] ?? "").isEmpty else {
            return nil
        }
        return DirectExec(exportedFunctions: facts.bashFunctions)
    }

    /// The program's words if `line` needs no shell and its program is there to run; `nil` if the
    /// shell is needed (also to say that a program is missing, with the shell's words and status).
    package func command(for line: [UInt8]) -> [[UInt8]]? {
        guard let words = words(of: line), programs.canRun(words[0]) else { return nil }
        return words
    }

    /// Whether the command name `name` runs a program found in `PATH` (or by its path): not one
    /// of the shell's own names, and a file the kernel runs.
    func runsProgram(_ name: [UInt8]) -> Bool {
        guard let text = String(validating: name, as: UTF8.self), !shellNames.contains(text) else { return false }
        return programs.canRun(name)
    }

    /// The program's words if `line` needs no shell; `nil` if it does.
    package func words(of line: [UInt8]) -> [[UInt8]]? {
        var words: [[UInt8]] = []
        var word: [UInt8] = []
        var inWord = false
        var index = 0
        while index < line.count {
            let byte = line[index]
            if byte == 0x20 || byte == 0x09 {
                if inWord { words.append(word) }
                (word, inWord) = ([], false)
            } else if byte == UInt8(ascii: "'") {
                // A single-quoted run: everything up to the next quote, as it is.
                guard let close = line[(index + 1)...].firstIndex(of: UInt8(ascii: "'")) else { return nil }
                word += line[(index + 1)..<close]
                inWord = true
                index = close
            } else if byte == UInt8(ascii: "\\"), index + 1 < line.count, line[index + 1] == UInt8(ascii: "'") {
                word.append(UInt8(ascii: "'"))
                inWord = true
                index += 1
            } else if Self.isPlain(byte) {
                word.append(byte)
                inWord = true
            } else {
                return nil
            }
            index += 1
        }
        if inWord { words.append(word) }
        guard let program = words.first, !program.isEmpty, let name = String(validating: program, as: UTF8.self),
            !shellNames.contains(name), Self.programIsPlain(line)
        else { return nil }
        return words
    }

    /// Bytes the shell reads as themselves in a word: those futurerun leaves unquoted, and `=`
    /// (an assignment only before the program's name, which may not hold one).
    private static func isPlain(_ byte: UInt8) -> Bool { ShellQuoting.isSafe(byte) || byte == UInt8(ascii: "=") }

    /// The program's name is written plainly (no quote in it): `'ls'` is left to the shell.
    private static func programIsPlain(_ line: [UInt8]) -> Bool {
        let start = line.drop { $0 == 0x20 || $0 == 0x09 }
        return start.prefix { $0 != 0x20 && $0 != 0x09 }.allSatisfy(ShellQuoting.isSafe)
    }

    /// dash's and bash's reserved words and builtins.
    static let keywordsAndBuiltins: Set<String> = [
        "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if",
        "in", "select", "then", "time", "until", "while", ".", ":", "[", "alias", "bg", "bind", "break", "builtin",
        "caller", "cd", "command", "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
        "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs",
        "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly",
        "return", "set", "shift", "shopt", "source", "suspend", "test", "times", "trap", "true", "type", "typeset",
        "ulimit", "umask", "unalias", "unset", "wait",
    ]
}

/// Which programs can be run, looked up in `PATH` once each (as the shell would, at each job; a
/// program installed during the run is found by the shell until then). Any thread.
private final class ProgramFinder: Sendable {
    private let found = Locked<[[UInt8]: Bool]>([:])

    func canRun(_ program: [UInt8]) -> Bool {
        if let known = found.withLock({ $0[program] }) { return known }
        guard let name = String(validating: program, as: UTF8.self) else { return false }
        var runnable = false
        if case .success(let path) = Command.locateExecutable(name) { runnable = Self.isExecutableFormat(path) }
        found.withLock { $0[program] = runnable }
        return runnable
    }

    /// Whether the kernel runs `path` itself (an ELF binary, or a script naming its interpreter
    /// with `#!`); a script without `#!` is one the shell runs as a shell script, so it keeps it.
    private static func isExecutableFormat(_ path: String) -> Bool {
        let descriptor = open(path.systemPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 4)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 4) }
        return (count >= 2 && head[0] == UInt8(ascii: "#") && head[1] == UInt8(ascii: "!"))
            || (count == 4 && head == [0x7F, 0x45, 0x4C, 0x46])
    }
}
