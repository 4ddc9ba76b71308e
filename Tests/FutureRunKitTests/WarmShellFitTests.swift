import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Which lines run in a warm shell, and how (``WarmShellFit``), as values: no process. Programs
/// are looked up in `PATH` (`ls`, `gzip`, `cat` and `wc` are on every machine the tests run on).
@Suite struct WarmShellFitChoice {
    private let fit = WarmShellFit(commands: DirectExec(exportedFunctions: ["myfunc"]))
    private let everyIsolatable = WarmShellFit(commands: DirectExec(exportedFunctions: ["myfunc"]), everyIsolatable: true)

    private func way(_ line: String, _ fit: WarmShellFit? = nil) -> WarmShellFit.Way? {
        (fit ?? self.fit).way(for: Array(line.utf8))
    }

    @Test(arguments: [
        "echo 5", "echo a b; echo c", "printf '%s\\n' 'a b'", "_fr1='a b'; printf \"%s\\n\" \"${_fr1}\"", "true && false || :",
        "[ 1 = 2 ]", "test -f x", "ls -l | wc -l", "echo \"$HOME\" $? ${PATH}", "gzip -k a.log", "echo *.c ~ x[ab]",
        "echo 'a;b' \"c|d\" e\\&f", "echo x;", "cat\tfile",
    ])
    func listsOfHarmlessCommandsRunInTheShell(line: String) {
        #expect(way(line) == .inShell || way(line) == .builtins, "\(line)")
    }

    /// Only lines of builtins end at once, so that a job may wait behind them in the shell's pipe.
    @Test func linesOfBuiltinsAloneAreTold() {
        for line in ["echo 5", "echo a b; echo c", "_fr1='a b'; printf \"%s\\n\" \"${_fr1}\"", "true && false || :", "[ 1 = 2 ]"]
        {
            #expect(way(line) == .builtins, "\(line)")
        }
        for line in ["ls -l | wc -l", "gzip -k a.log", "echo a; cat f", "_fr1=x; ls \"$_fr1\""] {
            #expect(way(line) == .inShell, "\(line)")
        }
    }

    @Test(arguments: [
        // State that would outlast the job: assignments, cd, exit, exec, set, traps, umask, functions.
        "x=1", "x=1 ls", "cd /tmp", "exit 3", "exec ls", "set -e", "trap 'echo' EXIT", "umask 077", "f() { :; }",
        "myfunc a", "read x", "export A=1", "printf -v x %s y", "[ -v x ]", "test -R x", "test \"$x\" = y",
        // What the small grammar leaves to a shell of its own: redirections, substitutions, keywords…
        "echo a > f", "cat < f", "echo $(date)", "echo `date`", "echo $((1+2))", "echo ${x:-y}", "echo $$", "echo $!",
        "echo $0", "if true; then :; fi", "{ echo; }", "(echo)", "! ls", "ls &", "sleep 1 & wait", "echo a\necho b",
        "echo a #c", "echo a\\", "'ls' a", "$CMD a", "l\\s", "nosuch-program-of-futurerun", "ls |& wc", "echo ;; x", "; ls",
        "ls ||", "ls 'unclosed", "echo \"unclosed", "",
    ])
    func everythingElseRunsInAShellOfItsOwn(line: String) {
        #expect(way(line) == nil, "\(line)")
    }

    @Test func everyIsolatableLineRunsInASubshellWhenAsked() {
        #expect(way("cd /tmp; x=1; exit 3", everyIsolatable) == .inSubshell)
        #expect(way("echo $(date) > f", everyIsolatable) == .inSubshell)
        #expect(way("echo a 2>&1 >&2 && b &>/dev/null", everyIsolatable) == .inSubshell)
        #expect(way("echo 5", everyIsolatable) == .builtins)
        // A background job outlives a subshell; `$$` is the warm shell's.
        #expect(way("sleep 1 & echo", everyIsolatable) == nil)
        #expect(way("kill $$", everyIsolatable) == nil)
        #expect(way("trap '' TERM; sleep 9", everyIsolatable) == nil)
    }
}
