import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Which lines run without the shell (``DirectExec``), as values: no process.
@Suite struct DirectExecChoice {
    private let direct = DirectExec(exportedFunctions: ["myfunc"])

    private func words(_ line: String) -> [String]? {
        direct.words(of: Array(line.utf8)).map { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func plainWordsAndFuturerunsOwnQuotesRunDirectly() {
        #expect(words("/bin/true 5") == ["/bin/true", "5"])
        #expect(words("gzip -k  a.log\t") == ["gzip", "-k", "a.log"])
        #expect(words("printf-like 'a b' 'it'\\''s' ''") == ["printf-like", "a b", "it's", ""])
        #expect(words("cp 'x'y z=1 a,b:c@d%e+f") == ["cp", "xy", "z=1", "a,b:c@d%e+f"])
    }

    @Test(arguments: [
        "echo a", "true", "cd /tmp", "exit 3", "exec ls", "[ -f x ]", "test -f x", "myfunc a", "if true", "time ls",
        "A=1 ls", "ls $HOME", "ls \"a\"", "ls *.c", "ls ~", "ls a;b", "ls | wc", "ls > f", "ls &", "ls\nls", "ls {a,b}",
        "ls `x`", "ls #c", "ls a\\ b", "'ls' a", "ls 'unclosed", "", "   ", "! ls", "ls (a)",
    ])
    func whatTheShellWouldReadOtherwiseKeepsTheShell(line: String) {
        #expect(words(line) == nil, "\(line)")
    }
}
