import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// The command line as getopt users expect it (SPEC.md §2 "Parsing"), on the built binary.
@Suite struct CommandLineParsing {
    @Test func aValueOptionRefusesAnotherOptionAsItsValueAndRunsNothing() {
        let scratch = Scratch()
        let marker = "touch \(quoted(scratch.file("ran")))"
        for (arguments, message) in [
            (["--joblog", "-j4", marker], "'--joblog' needs a FILE; '-j4' is an option"),
            (["--results", "--dry-run", marker], "'--results' needs a DIR; '--dry-run' is an option"),
        ] {
            let run = futurerun(arguments, directory: scratch.path)
            #expect(run.status == 255)
            #expect(run.errLines.count == 1)
            #expect(run.err.contains(message), "\(run.err)")
        }
        #expect(!scratch.exists("ran"))
        #expect(!scratch.exists("-j4"))
        #expect(!scratch.exists("--dry-run"))
    }

    @Test func wordsAfterTheTemplateAreDataEvenWhenTheyStartWithADash() {
        let scratch = Scratch()
        scratch.write("-q", "")
        scratch.write("a", "")
        scratch.write("-rf.txt", "")
        let run = futurerun(["--each", "echo got {}", "-q", "a"], directory: scratch.path)
        #expect(run.status == 0)
        #expect(run.out == "got -q\ngot a\n")
        #expect(run.err.contains("ok   [1/2] -q"), "quiet mode must not be on: \(run.err)")
        // Through the shell's glob, as a user types it.
        let globbed = futurerun(["-q", "--each", "echo {}"], shellSuffix: " *", directory: scratch.path)
        #expect(globbed.status == 0, "\(globbed.err)")
        #expect(globbed.out == "-q\n-rf.txt\na\n")
    }

    @Test func timeoutZeroIsNoLimitAndCompoundDurationsWork() {
        let none = futurerun(["-q", "--timeout", "0", "sleep 0.3; echo finished"])
        #expect(none.status == 0)
        #expect(none.out == "finished\n")
        let compound = futurerun(["--timeout", "1m30s", "echo ok"])
        #expect(compound.status == 0)
        #expect(compound.out == "ok\n")
        let bad = futurerun(["--timeout", "1m30", "echo ok"])
        #expect(bad.status == 255)
        #expect(bad.err.contains("1m30s"))
    }

    @Test func aShellThatCannotRunIsRefusedAtTheStart() {
        let scratch = Scratch()
        for shell in ["/no/such", scratch.path, "no-such-shell-here"] {
            let run = futurerun(["--shell", shell, "touch \(quoted(scratch.file("ran")))"])
            #expect(run.status == 255, "\(shell)")
            #expect(run.errLines.count == 1)
            #expect(run.err.contains("cannot run the shell '\(shell)'"), "\(run.err)")
        }
        #expect(!scratch.exists("ran"))
        #expect(futurerun(["-q", "--shell", "bash", "echo $BASH_VERSION | cut -c1"]).out.count == 2)
    }

    @Test func jobNumberAndSlotCountAsReplacementStrings() {
        let run = futurerun(["-q", "-j1", "--each", "echo job {#} slot {%}", "a", "b"])
        #expect(run.out == "job 1 slot 1\njob 2 slot 1\n")
    }

    @Test func theSizeLimitIsOnTheBuiltCommandNotTheInputLine() {
        // GNU parallel's INPUTSIZE case: a 100 MB line whose {.} is `foo`.
        let line = "{ printf 'foo.'; head -c 100000000 /dev/zero | tr '\\0' x; echo; } | "
        let shortened = futurerun(["-q", "--each", "echo {.}"], shellPrefix: line, exec: false)
        #expect(shortened.status == 0, "\(shortened.err)")
        #expect(shortened.out == "foo\n")
        // The same line used whole makes a command too long to run: that job fails, clearly.
        let whole = futurerun(
            ["--each", "echo {}"], shellPrefix: "{ echo short; printf 'foo.'; head -c 300000 /dev/zero | tr '\\0' x; echo; } | ",
            exec: false)
        #expect(whole.status == 1)
        #expect(whole.out == "short\n")
        #expect(whole.err.contains("longer than the 131071 bytes one command may have"))
    }

    static let hostileNames = ["$(touch PWNED)", "`touch PWNED`", "'; touch PWNED; '", "new\nline", "\"; touch PWNED; \""]

    @Test(arguments: [
        ("plain", "printf '%s\\n' {}"),
        ("double quotes", "printf '%s\\n' \"{}\""),
        ("single quotes", "printf '%s\\n' '{}'"),
        ("backquotes", "echo `printf '%s' {}`"),
        ("$(...)", "printf '%s\\n' \"$(printf '%s' {})\""),
        ("here-document", "cat <<EOF\n{}\nEOF"),
        ("after arithmetic", "echo $((1<<2))\nprintf '%s\\n' {}"),
        ("a subshell in $(...)", "echo \"$( (true) ; printf '%s\\n' {} )\""),
        ("a case in $(...)", "echo \"$(case x in x) printf '%s\\n' {};; esac)\""),
        ("a function in $(...)", "echo \"$(f() { printf '%s\\n' \"$1\"; }; f {})\""),
        ("a comment in backquotes", "echo `true #`\nprintf '%s\\n' {}"),
        ("a comment", "printf '%s\\n' {}  # from {}"),
    ])
    func aSubstitutedArgumentIsDataInEveryQuotingContext(context: String, template: String) {
        let scratch = Scratch()
        let run = futurerun(["-q", "--each", template] + Self.hostileNames, directory: scratch.path)
        #expect(run.status == 0, "\(context): \(run.err)")
        #expect(!scratch.exists("PWNED"), "\(context) ran an argument as code")
        for name in Self.hostileNames where !name.contains("\n") && context != "backquotes" {
            #expect(run.out.contains(name), "\(context) lost \(name): \(run.out)")
        }
    }

    @Test(arguments: [
        ("echo $'x{}'", "{} at character 9 of the template would not be data in $'...'"),
        ("cat <<'EOF'\n{}\nEOF", "would not be data in a quoted here-document"),
        ("echo $(( {} + 1 ))", "the shell evaluates an argument there as an expression"),
        ("cat <<EOF\n", "where appended arguments would not be data"),
    ])
    func aTemplateWithAReplacementWhereNothingKeepsItDataIsRefused(template: String, message: String) {
        let scratch = Scratch()
        let run = futurerun(["--each", template, "$(touch PWNED)"], directory: scratch.path)
        #expect(run.status == 255)
        #expect(run.errLines.count == 1)
        #expect(run.err.contains(message), "\(run.err)")
        #expect(!scratch.exists("PWNED"))
    }

    @Test func anArgumentHoldingTheDelimiterLineStaysInTheHereDocument() {
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "--each", "cat <<EOF\nEOF{1}\necho {2}\nEOF", ":::", "", ":::", "; touch PWNED"], directory: scratch.path)
        #expect(run.status == 0)
        #expect(run.out == "EOF\necho ; touch PWNED\n")
        #expect(!scratch.exists("PWNED"))
        let body = futurerun(["-q", "--each", "cat <<EOF\n{}\nEOF", "fine", "x\nEOF\ntouch PWNED"], directory: scratch.path)
        #expect(body.out == "fine\nx\nEOF\ntouch PWNED\n")
        #expect(!scratch.exists("PWNED"))
    }

    @Test func aShellVariableDefaultHoldsABraceFromTheArgument() {
        let run = futurerun(["-q", "--each", "printf %s \"${x:-{}}\"", "a}b"])
        #expect(run.out == "a}b")
        let escaped = futurerun(["-q", "--each", "echo \\$'{}'", "q"])
        #expect(escaped.status == 0)
        #expect(escaped.out == "$q\n")
    }
}

/// GNU parallel's and xargs's spellings, with their meaning.
@Suite struct ParallelHabits {
    @Test func keepOrderIsAcceptedAndOrderIsKept() {
        let run = futurerun(["-k", "-q", "sleep 0.2; echo 1", ":::", "echo 2"])
        #expect(run.status == 0)
        #expect(run.out == "1\n2\n")
    }

    @Test func fourColonsReadAnArgumentListOrJobLinesFromAFile() {
        let scratch = Scratch()
        scratch.write("jobs.txt", "echo j1\n# skipped\necho j2\n")
        scratch.write("args.txt", "a\nb\n")
        #expect(futurerun(["-q", "::::", scratch.file("jobs.txt")]).out == "j1\nj2\n")
        #expect(futurerun(["-q", "--each", "echo {}", "::::", scratch.file("args.txt")]).out == "a\nb\n")
        #expect(
            futurerun(["-q", "--each", "echo {1}{2}", "::::", scratch.file("args.txt"), ":::", "1", "2"]).out
                == "a1\na2\nb1\nb2\n")
        let missing = futurerun(["--each", "echo {}", "::::", scratch.file("nope")])
        #expect(missing.status == 255)
        #expect(missing.err.contains("cannot read"))
    }

    @Test func maxArgsGivesEachJobUpToNArgumentsEachQuoted() {
        let run = futurerun(["--dry-run", "-n", "2", "--each", "rm {}", "a", "b c", "d"])
        #expect(run.out == "rm a 'b c'\nrm d\n")
        let numbered = futurerun(["-q", "-n2", "--each", "echo {2}-{1}"], stdin: "1\n2\n3\n4\n")
        #expect(numbered.out == "2-1\n4-3\n")
        let appended = futurerun(["-q", "-n", "3", "--each", "echo"], stdin: "x\ny\nz\nw\n")
        #expect(appended.out == "x y z\nw\n")
    }

    @Test func colsepSplitsInputLinesIntoNumberedColumns() {
        #expect(futurerun(["-q", "--colsep", ",", "--each", "echo {2} of {1}"], stdin: "a,1\nb,2\n").out == "1 of a\n2 of b\n")
        #expect(futurerun(["-q", "--colsep", "\\t", "--each", "echo {2}"], stdin: "a\tx y\n").out == "x y\n")
        #expect(futurerun(["-q", "--colsep", "[;,]+", "--each", "echo {3}"], stdin: "a;,b,c\n").out == "c\n")
        let bad = futurerun(["--colsep", "(", "--each", "echo {1}"], stdin: "a\n")
        #expect(bad.status == 255)
        #expect(bad.err.contains("'--colsep'"))
    }

    @Test func barAndEtaShowTheProgressLine() {
        for option in ["--bar", "--eta"] {
            let run = futurerun([option, "echo x"])
            #expect(run.status == 0)
            #expect(run.err.contains("\r"), "\(option) drew no progress line: \(run.err)")
        }
    }
}

/// The generated completion scripts are valid for their shells and offer the table's options.
@Suite struct CompletionScripts {
    @Test(arguments: [
        (
            "bash", "completions/futurerun.bash",
            "source FILE; COMP_WORDS=(futurerun --col); COMP_CWORD=1; _futurerun; echo \"${COMPREPLY[@]}\""
        ),
        ("zsh", "completions/_futurerun", "zsh -n FILE && echo --colsep --color"),
        ("fish", "completions/futurerun.fish", "source FILE; complete -C 'futurerun --col' | cut -f1 | tr '\\n' ' '"),
    ])
    func completionScriptParsesAndOffersOptions(shell: String, file: String, script: String) throws {
        try #require(access("/usr/bin/\(shell)", X_OK) == 0, "\(shell) is not installed (.ci/run installs it)")
        let line = script.replacing("FILE", with: quoted(packageRoot() + "/" + file))
        let result = Command(["/usr/bin/\(shell)", "-c", line]).run().value
        let output = String(decoding: result.stdout.bytes(), as: UTF8.self)
        #expect(result.status == .exited(0), "\(String(decoding: result.stderr.bytes(), as: UTF8.self))")
        #expect(output.contains("--colsep") && output.contains("--color"), "\(output)")
    }

    @Test func bashOffersFilesAfterTheTemplateNotCommands() throws {
        try #require(access("/usr/bin/bash", X_OK) == 0, "bash is not installed")
        let script = quoted(packageRoot() + "/completions/futurerun.bash")
        let line =
            "cd \(quoted(packageRoot())) && source \(script); COMP_WORDS=(futurerun --each 'gzip {}' Packa);"
            + " COMP_CWORD=3; _futurerun; echo \"${COMPREPLY[@]}\""
        let result = Command(["/usr/bin/bash", "-c", line]).run().value
        #expect(String(decoding: result.stdout.bytes(), as: UTF8.self) == "Package.swift\n")
    }
}
