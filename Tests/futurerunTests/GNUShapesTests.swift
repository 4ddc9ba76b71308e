import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// futurerun's own grammar is not GNU parallel's: what a GNU user types either does what GNU
/// parallel does (checked against it on the same input) or is refused with a message naming
/// `--each`, never run as something else.
@Suite struct GNUShapesInTheNativeGrammar {
    /// GNU parallel's stdout and exit status for `line` (shell words after `parallel`), fed `stdin`.
    private func gnu(_ line: String, stdin: String = "") -> (out: String, status: Int32) {
        var command = Command.shell("printf '%s' \(quoted(stdin)) | parallel \(line) 2>/dev/null")
        command.environment = [("HOME", Scratch().path)]
        let result = command.run().value
        return (String(decoding: result.stdout.bytes(), as: UTF8.self), result.status.shellStatus)
    }

    /// GNU parallel's line, futurerun's (its own grammar: `--each` before a template), and stdin.
    @Test(arguments: [
        ("--pipe -N1 'paste -sd+'", "--pipe -N1 'paste -sd+'", "1\n2\n3\n4\n5\n6\n"),
        ("--pipe --recstart '>' -N1 'head -1'", "--pipe --recstart '>' -N1 'head -1'", ">a\nAC\n>b\nGT\n"),
        ("echo ::: A B C D E :::+ F G", "--each echo ::: A B C D E :::+ F G", ""),
        ("-E stop echo ::: A B stop C D", "-E stop --each echo ::: A B stop C D", ""),
        ("--tag --line-buffer 'echo {}' ::: x", "--tag --line-buffer --each 'echo {}' ::: x", ""),
        ("-N2 'echo {1} {2}' ::: 7", "-N2 --each 'echo {1} {2}' ::: 7", ""),
    ])
    func whatGNUParallelClaimsTheSameDoesTheSame(gnuLine: String, native: String, stdin: String) throws {
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let expected = gnu("-k " + gnuLine, stdin: stdin)
        var command = Command.shell("printf '%s' \(quoted(stdin)) | \(quoted(futurerunPath)) -q \(native)")
        command.environment = [("CI", "")]
        let run = command.run().value
        #expect(String(decoding: run.stdout.bytes(), as: UTF8.self) == expected.out, "\(native)")
        #expect(run.status.shellStatus == expected.status)
    }

    @Test(arguments: [
        ("find /dev/null | ", ["gzip"], "'... | parallel COMMAND'"),
        ("seq 1 5 | ", ["-j4", "echo"], "futurerun --each 'echo {}'"),
        ("printf 'a\\nb\\n' | ", ["echo", "{}"], "replacement string in a command"),
        (
            "", ["--dry-run", "Rscript", "run.R", "{1}", "{2}", ":::", "1", "2", ":::", "3", "4"],
            "give the arguments with --each"
        ),
        ("", [":::", "echo 1", "echo 2"], "':::' before the commands"),
    ])
    func aGNUOnlyShapeIsRefusedNamingEach(pipe: String, arguments: [String], message: String) {
        let scratch = Scratch()
        let run = futurerun(arguments, shellPrefix: pipe, directory: scratch.path, exec: false)
        #expect(run.status == 255 && run.errLines.count == 1, "\(arguments): \(run.err)")
        #expect(run.err.contains(message), "\(run.err)")
        #expect(run.out.isEmpty && scratch.entries().isEmpty)
    }

    @Test func nativeShapesThatLookAlikeStillRun() {
        // Braces in single quotes (JSON), find -exec's {}, and one command with stdin from /dev/null.
        let json = futurerun(["-q", "printf '%s' '{}'", ":::", "find /dev/null -maxdepth 0 -exec echo {} \\;"])
        #expect(json.status == 0 && json.out == "{}/dev/null\n", "\(json.err)")
        let one = futurerun(["-q", "echo one"], shellPrefix: "exec < /dev/null; ")
        #expect(one.status == 0 && one.out == "one\n", "\(one.err)")
    }

    @Test func exportedBashFunctionsRunWithBashInBothGrammars() {
        /// futurerun with `arguments`, started by bash with the function `greet` exported.
        func withGreet(_ arguments: String) -> (out: String, err: String) {
            var command = Command.shell(
                "exec bash -c 'greet() { echo \"hi $1\"; }; export -f greet; \(quoted(futurerunPath)) \(arguments); true'")
            command.environment = [("SHELL", "/bin/sh"), ("PARALLEL_SHELL", ""), ("CI", "")]
            let result = command.run().value
            return (
                String(decoding: result.stdout.bytes(), as: UTF8.self), String(decoding: result.stderr.bytes(), as: UTF8.self)
            )
        }
        let native = withGreet("-q \"greet a\"")
        #expect(native.out == "hi a\n", "\(native.err)")
        #expect(
            native.err
                == "futurerun: the environment holds exported bash functions: jobs run with /bin/bash (--shell chooses another)\n"
        )
        // --gnu: the shell that started futurerun (bash here), as GNU parallel picks it.
        let gnu = withGreet("--gnu -k greet ::: a b")
        #expect(gnu.out == "hi a\nhi b\n", "\(gnu.err)")
    }

    /// GNU's `skip()` skips the job, its number used (GNU parallel's own exit status for it differs
    /// between releases: 1 in 20221122, 0 in 20260522; futurerun's is 0, nothing failed).
    @Test func aPerlExpressionMaySkipItsJob() {
        let run = futurerun(["--gnu", "-k", "echo {#} {= skip() if /b/ =}", ":::", "a", "b", "c"])
        #expect(run.out == "1 a\n3 c\n" && run.status == 0, "\(run.err)")
    }

    @Test func perlExpressionsAreRefusedWithTheirReason() {
        // Outside GNU's grammar: naming --gnu.
        let native = futurerun(["--each", "echo {= s/a/b/ =}", ":::", "a"])
        #expect(native.status == 255 && native.err.contains("--gnu"), "\(native.err)")
        // Perl that does not compile: nothing runs.
        let scratch = Scratch()
        let broken = futurerun(["--gnu", "touch ran; echo {= s/( =}", ":::", "a"], directory: scratch.path)
        #expect(broken.status == 255 && broken.err.contains("compile") && !scratch.exists("ran"), "\(broken.err)")
        // Where no perl is installed.
        let noPerl = futurerun(["--gnu", "echo {= s/a/b/ =}", ":::", "a"], environment: [("PATH", scratch.path)])
        #expect(noPerl.status == 255 && noPerl.err.contains("perl, which is not installed"), "\(noPerl.err)")
        // An expression that dies fails its job, saying why, even in GNU's quiet grammar.
        let dies = futurerun(["--gnu", "-k", "echo {= die \"no $_\" if /b/ =}", ":::", "a", "b"])
        #expect(dies.out == "a\n" && dies.status == 1 && dies.err.contains("no b"), "\(dies.err)")
    }
}
