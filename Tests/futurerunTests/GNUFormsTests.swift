import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// GNU parallel's forms run through GNU parallel and futurerun on the same input: where futurerun
/// says "same", the output is the same; a form it does not do is refused, never read as another.
@Suite struct GNUForms {
    /// What GNU parallel prints for `arguments` (with `-k`, so in input order, as futurerun).
    private func gnu(_ arguments: [String]) -> String {
        let line = (["parallel", "-k"] + arguments).map(quoted).joined(separator: " ")
        return String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self)
    }

    @Test(arguments: [
        ["echo {1} {2}", ":::", "A", "B", "C", ":::+", "x", "y", "z"],
        ["echo {1} {2} {3}", ":::", "A", "B", ":::+", "x", "y", ":::", "1", "2"],
        ["echo {-1}", ":::", "A", ":::", "B"],
        ["echo {-2.} {-1/}", ":::", "a.txt", ":::", "d/b.c"],
        ["echo {} {.} {/} {//} {/.}", ":::", "dir/a.tar.gz", "b"],
        ["echo {2}-{1}", ":::", "a", "b", ":::", "1", "2"],
    ])
    func sameAsGNUParallel(arguments: [String]) {
        #expect(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let run = futurerun(["-q", "--each"] + arguments)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == gnu(arguments), "\(arguments)")
    }

    /// GNU parallel's exit status and output for `options` and the template over `arguments`.
    private func gnuRun(_ options: [String], _ template: String, _ arguments: [String], in directory: String) -> (Int32, String) {
        let line = (["parallel", "-k"] + options + [template, ":::"] + arguments).map(quoted).joined(separator: " ")
        var command = Command.shell(line + " 2>/dev/null")
        command.workingDirectory = directory
        let result = command.run().value
        return (result.status.shellStatus, String(decoding: result.stdout.bytes(), as: UTF8.self))
    }

    @Test(arguments: [
        (["-j1", "--halt", "soon,fail=20%"], ["0", "1", "0", "1", "0", "1", "0", "0", "0", "0"]),
        (["-j1", "--halt", "now,fail=1"], ["0", "3", "0"]),
        (["-j1", "--halt", "soon,fail=1"], ["0", "3", "0"]),
        (["-j1", "--halt", "soon,fail=2"], ["0", "3", "5", "0"]),
        (["-j1", "--halt", "now,done=2"], ["3", "0", "0", "0"]),
        (["-j1", "--halt", "soon,success=50%"], ["1", "0", "0", "1"]),
        (["-j1", "--halt", "now,success=1"], ["1", "0", "1"]),
        (["-j1", "--retries", "3"], ["0", "2"]),
    ])
    func haltAndRetriesEndAsGNUParallelsDo(options: [String], arguments: [String]) {
        #expect(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let scratch = Scratch()
        // Each attempt leaves a line in a file of its own: retries are counted, not timed.
        let template = "echo {} >> attempts.{}; echo job {}; exit {}"
        let (gnuStatus, gnuOut) = gnuRun(options, template, arguments, in: scratch.path)
        let gnuAttempts = Set(arguments).map { scratch.read("attempts.\($0)") ?? "" }.sorted()
        for argument in Set(arguments) { unlink(scratch.file("attempts.\(argument)")) }
        let run = futurerun(["-q"] + options + ["--each", template, ":::"] + arguments, directory: scratch.path)
        #expect(run.status == gnuStatus, "\(options) \(arguments): GNU parallel exits \(gnuStatus)")
        #expect(run.out == gnuOut, "\(options) \(arguments)")
        #expect(Set(arguments).map { scratch.read("attempts.\($0)") ?? "" }.sorted() == gnuAttempts, "attempts")
    }

    @Test(arguments: [
        (["-n", "0"], "echo hi", ["a", "b", "c"]),
        (["--colsep", ","], "echo {2}:{1}:", [" a , b ", "c,d"]),
        (["--trim", "n", "--colsep", ","], "echo {2}:{1}:", [" a , b "]),
        (["--trim", "lr"], "echo [{}]", ["  x  ", "y"]),
        (["--trim", "l"], "echo [{}]", ["  x  "]),
        (["-n", "2"], "echo {1}-{2}", ["a", "b", "c"]),
        (["-P", "2", "--max-procs", "2"], "echo {}", ["a", "b"]),
        (["-N", "2"], "echo {1}+{2}", ["a", "b", "c"]),
        (["--tagstring", "{#}-{}"], "echo {}", ["a", "b c"]),
        (["--plus"], "echo {}:{..}:{...}:{/..}:{/...}:{+/}:{+.}:{+..}:{+...}", ["dir/a.tar.gz", "b", "c.d", "x/y.e.f.g", "/r"]),
        (
            ["--plus"], "echo {:-E}/{:2}/{1:1:2}/{#a*b}/{##a*b}/{%b.*}/{%%b.*}/{/b/X}/{//b/$1}/{/#a/X}/{/%b/X}",
            ["abcb", "", "aab", "é.b"]
        ),
        (["--plus"], "echo {^a.}/{^^b}/{,A}/{,,B}/{-1/[ch]/-}", ["abcb", "ABCB", "ch"]),
        (["--plus"], "cp {} {}{,.bak} 2>/dev/null; echo {,.bak}", ["A.BAK"]),
        (["--header", ":"], "echo {f1}-{f2}", ["f1", "a", "b", ":::", "f2", "c"]),
        (["--tag"], "echo {}", [String(repeating: "long", count: 20), "b"]),
        (["-N", "3"], "echo {}", ["a", "b", "c", "d"]),
    ])
    func optionsAsGNUParallel(options: [String], template: String, arguments: [String]) {
        #expect(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let run = futurerun(["-q"] + options + ["--each", template, ":::"] + arguments)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == gnu(options + [template, ":::"] + arguments), "\(options) \(template)")
    }

    @Test(arguments: [
        (["-d", ","], "a,b,c"), (["-d", "\\t"], "a\tb"), (["-E", "END"], "a\nb\nEND\nc\n"),
    ])
    func inputSeparatorsAsGNUParallel(options: [String], input: String) {
        let run = futurerun(["-q"] + options + ["--each", "echo [{}]"], stdin: input)
        let line =
            "printf '%s' \(quoted(input)) | parallel -k " + (options + ["echo", "[{}]"]).map(quoted).joined(separator: " ")
        let gnu = String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == gnu, "\(options)")
    }

    /// `--xargs`, `-m` and `-X` over ten input lines: the same lines fill the same jobs as in GNU
    /// parallel, the last arguments spread over the job slots by `-m` and `-X`, not `--xargs`.
    @Test(arguments: [
        (["-j4", "-m"], "echo"), (["-j4", "--xargs"], "echo"), (["-j4", "-X"], "echo a{}b"),
        (["-j1", "-X"], "echo pre{}post {#} \"{}\""), (["-j4", "-m"], "echo a{}b {.}"), (["-j3", "-X", "-n2"], "echo x{}"),
        (["-j2", "--xargs", "-n4"], "echo"), (["-j0", "-m"], "echo"), (["-j2", "-X"], "echo 'x {} y'"),
    ])
    func fillingCommandLinesAsGNUParallel(options: [String], template: String) {
        let input = (1...10).map { "\($0)\n" }.joined()
        let run = futurerun(["-q"] + options + ["--each", template], stdin: input)
        let line = "seq 10 | parallel -k " + (options + [template]).map(quoted).joined(separator: " ")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self), "\(options)")
        let listed = futurerun(["-q"] + options + ["--each", template, ":::"] + (1...10).map(String.init))
        #expect(listed.out == run.out, "a ::: list fills as input lines do")
    }

    @Test func aFilledLineStaysWithinTheCommandLimitAndLosesNoArgument() {
        // 40,000 arguments of 6 bytes: several full lines, each within the limit, every argument once.
        let run = futurerun(
            ["-q", "--xargs", "--each", "echo {}; echo \"{}\" | wc -c >&2"], shellPrefix: "seq 100000 139999 | ")
        #expect(run.status == 0, "\(run.err)")
        let lengths = run.errLines.compactMap { Int($0.filter { $0 != " " }) }
        #expect(lengths.count > 1 && lengths.allSatisfy { $0 <= 128 * 1024 }, "\(lengths)")
        let arguments = run.out.split(whereSeparator: { $0 == " " || $0 == "\n" })
        #expect(arguments == (100_000..<140_000).map { "\($0)"[...] }, "\(arguments.count) arguments")
    }

    @Test(arguments: [
        (["-m", "--each", "echo {}", ":::", "a", ":::", "b"], "one argument list"),
        (["-X", "--colsep", ",", "--each", "echo {}", ":::", "a"], "--colsep"),
        (["-X", "--each", "echo {1}", ":::", "a"], "not numbered"), (["--xargs", "echo"], "--each"),
        (["-X", "--each", "echo x\"{}", ":::", "a", "$(touch PWNED)"], "a word that -X repeats"),
        (["-X", "--each", "echo a'{}", ":::", "a"], "a word that -X repeats"),
    ])
    func fillingNeedsOneUnnumberedList(arguments: [String], says: String) {
        let run = futurerun(arguments)
        #expect(run.status == 255 && run.errLines.count == 1 && run.err.contains(says), "\(run.err)")
    }

    @Test func filesHoldEachJobsStdoutAndTheirNamesArePrintedInOrderAsInGNUParallel() {
        let scratch = Scratch()
        let template = "sleep 0.{}; echo out {}; echo err {} >&2"
        let run = futurerun(
            ["-q", "--files", "--each", template, ":::", "3", "1", "2"], environment: [("TMPDIR", scratch.path)])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.errLines == ["err 3", "err 1", "err 2"], "stderr is printed, not lost")
        let names = run.out.split(separator: "\n").map(String.init)
        #expect(names.count == 3 && names.allSatisfy { $0.hasPrefix(scratch.path + "/futurerun-") }, "\(names)")
        let gnuNames = gnu(["--files", template, ":::", "3", "1", "2"]).split(separator: "\n").map(String.init)
        let contents = { (paths: [String]) in paths.map { readText($0) ?? "missing" } }
        #expect(contents(names) == contents(gnuNames), "the same bytes in each file, in the same order")
        #expect(contents(names) == ["out 3\n", "out 1\n", "out 2\n"])
        for path in gnuNames { unlink(path) }
        let unwritable = futurerun(["-q", "--files", "echo x"], environment: [("TMPDIR", scratch.file("missing"))])
        #expect(unwritable.status != 0 && unwritable.err.contains("--files"), "\(unwritable.err)")
    }

    @Test func aHeaderLineNamesTheColumnsAsInGNUParallel() {
        let input = "name,age\nann,3\nbob,4\n"
        let run = futurerun(["-q", "--header", ":", "--colsep", ",", "--each", "echo {age}:{name}"], stdin: input)
        let line = "printf '%s' \(quoted(input)) | parallel -k --header : --colsep , echo {age}:{name}"
        #expect(run.out == String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self))
        #expect(run.out == "3:ann\n4:bob\n")
    }

    @Test func replaceStringAndSeveralArgumentFilesAsGNUParallel() {
        let scratch = Scratch()
        scratch.write("a", "1\n2\n")
        scratch.write("b", "x\ny\n")
        for options in [
            ["-a", scratch.file("a"), "-a", scratch.file("b")], ["--link", "-a", scratch.file("a"), "-a", scratch.file("b")],
        ] {
            let run = futurerun(["-q"] + options + ["--each", "echo {1}{2}"])
            #expect(run.out == gnu(options + ["echo", "{1}{2}"]), "\(options)")
        }
        let replaced = futurerun(["-q", "-I", "%", "--each", "echo [%]", ":::", "a", "b c"])
        #expect(replaced.out == gnu(["-I", "%", "echo", "[%]", ":::", "a", "b c"]))
        let twice = futurerun(["-a", scratch.file("a"), "-a", scratch.file("b")])
        #expect(twice.status == 255 && twice.err.contains("works only with --each"), "\(twice.err)")
    }

    @Test func verboseAndLineBufferPrintAsGNUParallelDoes() {
        let verbose = futurerun(["-q", "-v", "--each", "echo {}", ":::", "a", "b c"])
        // GNU parallel prints the command lines on stdout; futurerun keeps stdout for the jobs.
        #expect(verbose.errLines == ["echo a", "echo 'b c'"], "\(verbose.err)")
        #expect(gnu(["-v", "echo", ":::", "a", "b c"]) == "echo a\na\necho 'b c'\nb c\n")
        // The second job's line comes while the first job runs (it waits for the file the second
        // makes after its line): printed as it comes, without a label.
        let scratch = Scratch()
        let made = quoted(scratch.file("made"))
        let lines = futurerun([
            "-q", "-j2", "--line-buffer",
            "echo x; \(untilExists(made)); echo x",
            ":::", "echo y; touch \(made)",
        ])
        let printed = lines.out.split(separator: "\n")
        #expect(printed.sorted() == ["x", "x", "y"], "lines as they are, no [label]: \(lines.out)")
        #expect(printed.last == "x", "the first job's last line after the second job's: \(lines.out)")
    }

    @Test func ungroupedOutputComesAsItIsReadHalfLinesToo() {
        // The first job's half line is printed before the second job runs: it waits for the file
        // the second makes, and the second only starts once the first has printed (-j2 both run).
        let scratch = Scratch()
        let (half, made) = (quoted(scratch.file("half")), quoted(scratch.file("made")))
        let run = futurerun([
            "-q", "-j2", "-u", "printf 'a'; touch \(half); \(untilExists(made)); echo b", ":::",
            "\(untilExists(half)); echo c; touch \(made)",
        ])
        #expect(run.status == 0)
        #expect(run.out == "ac\nb\n", "a half line, then the other job's line: \(run.out)")
    }

    @Test func shufRunsEveryJobOnceInARandomOrderNumberedInThatOrder() {
        let arguments = (1...30).map(String.init)
        var orders: [[String]] = []
        for _ in 1...2 {
            let run = futurerun(["-q", "--shuf", "--each", "echo {#}:{}", ":::"] + arguments)
            let lines = run.out.split(separator: "\n").map { $0.split(separator: ":").map(String.init) }
            #expect(lines.map { $0[0] } == arguments, "{#} counts in the shuffled order")
            #expect(lines.map { $0[1] }.sorted() == arguments.sorted(), "every job once")
            orders.append(lines.map { $0[1] })
        }
        // Both in input order by chance: 1 in (30!)^2.
        #expect(orders.contains { $0 != arguments }, "a random order")
        #expect(futurerun(["--shuf", "--resume", "--joblog", "/dev/null", "true"]).status == 255)
    }

    @Test func aPerlExpressionIsRefusedAndNoFileIsLost() {
        let scratch = Scratch()
        for number in 1...3 { scratch.write("log.\(number)", "v\(number)\n") }
        let run = futurerun(["-j1", "--each", "mv log.{} log.'{= $_++ =}'"], stdin: "3\n2\n1\n", directory: scratch.path)
        #expect(run.status == 255)
        #expect(run.err.contains("GNU parallel's {= perl expression =} is not futurerun's"), "\(run.err)")
        #expect(scratch.entries().sorted() == ["log.1", "log.2", "log.3"])
    }

    @Test func theShellsOwnBracesAreNotTakenForPlusStrings() {
        // Brace expansion (literal under dash) and ${#x} look like --plus's {,x} and {#x}: without --plus they are the
        // shell's, as in GNU parallel, and a ${…} is the shell's even with it.
        let plain = futurerun(["-q", "--each", "x=abc; echo {}{,.bak} ${#x} ${x%c}", ":::", "a"])
        #expect(plain.status == 0 && plain.out == "a{,.bak} 3 ab\n", "\(plain.err)")
        let plus = futurerun(["-q", "--plus", "--each", "x=abc; echo {+.} ${#x} ${x%c}", ":::", "a.b"])
        #expect(plus.status == 0 && plus.out == "b 3 ab\n", "\(plus.err)")
    }

    @Test(arguments: [
        (["--plus", "--each", "echo {##} {}", "a"], "{##} (--plus)"), (["-L", "1", "true"], "-L"),

        (["--pipe", "--round-robin", "wc"], "--round-robin"),
        (["--each", "echo {..}", "a"], "{..} without --plus"),
    ])
    func gnuFormsFuturerunDoesNotDoAreRefusedByName(arguments: [String], names: String) {
        let run = futurerun(arguments)
        #expect(run.status == 255)
        #expect(run.errLines.count == 1)
        #expect(run.err.contains("GNU parallel's") && run.err.contains(names), "\(run.err)")
        #expect(run.out == "")
    }

    /// Every option of GNU parallel's man page, as this machine has it.
    private static func gnuManPageOptions() -> [String] {
        let line = "man parallel 2>/dev/null | col -b | grep -E '^       --?[a-zA-Z]' | awk '{ print $1 }'"
        let text = String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self)
        return Set(
            text.split(separator: "\n").map { word in
                String(word.prefix { $0 != "[" && $0 != "," && $0 != "=" }).trimmingDots
            }
        ).filter { $0.count > 1 && !$0.hasSuffix(":") && !$0.contains("/") }.sorted()
    }

    @Test func noOptionOfGNUParallelsManPageIsUnknown() {
        let options = Self.gnuManPageOptions()
        #expect(
            options.count > 150, "GNU parallel's man page is needed (.ci/run installs parallel): \(options.count) options read")
        // In a directory of its own: an option that takes a file (`--joblog`, `--results`) writes `true`.
        let scratch = Scratch()
        for option in options {
            let run = futurerun([option, "true"], directory: scratch.path)
            #expect(!run.err.contains("unknown option"), "\(option): \(run.err)")
            if run.status == 255 && run.err.contains("GNU parallel's") { #expect(run.errLines.count == 1) }
        }
    }

    @Test func minusCNamesGNUParallelsMeaningWhenItIsNoDirectory() {
        let run = futurerun(["-C", ",", "true"])
        #expect(run.status == 255)
        #expect(run.err.contains("GNU parallel's -C is futurerun's --colsep"), "\(run.err)")
    }

    @Test func linkedListsNeedAListBefore() {
        let run = futurerun(["--each", "echo {}", ":::+", "a"])
        #expect(run.status == 255)
        #expect(run.err.contains("a list before it to pair with"), "\(run.err)")
    }

    /// futurerun running `arguments`, where `{job}` stands for a job that starts, waits to be let
    /// go, then prints `says`; futurerun gets `signal` once that job runs, and the job is let go
    /// `after` that (a bound only).
    private func signalWhileAJobWaits(
        _ signal: String, after: String, says: String, _ arguments: (String) -> [String]
    ) -> Outcome {
        let scratch = Scratch()
        let (started, go) = (quoted(scratch.file("started")), quoted(scratch.file("go")))
        return futurerun(
            arguments("touch \(started); \(untilExists(go)); echo \(says)"),
            shellPrefix: "( \(untilExists(started)); kill -\(signal) $$; sleep \(after); touch \(go) ) & ")
    }

    @Test func sighupStartsNothingNewAndLetsRunningJobsFinishAsGNUParallel() {
        let run = signalWhileAJobWaits("HUP", after: "0.5", says: "1") { ["-j1", $0, ":::", "echo 2"] }
        #expect(run.status == 0, "the run's own status, as GNU parallel's: \(run.err)")
        #expect(run.out == "1\n", "the running job finished, the next never started")
        #expect(run.err.contains("SIGHUP: no new job starts"), "\(run.err)")
    }

    @Test func sigusr1SaysWhichJobsRunAndTheRunGoesOn() {
        let run = signalWhileAJobWaits("USR1", after: "1.2", says: "done") { ["--names", "waiter", $0] }
        #expect(run.status == 0)
        #expect(run.out == "done\n")
        #expect(run.err.contains("futurerun: running: waiter ("), "\(run.err)")
    }
}

extension String {
    fileprivate var trimmingDots: String {
        var text = self
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
