import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

@Suite struct Formatting {
    @Test(arguments: [
        (Duration.milliseconds(0), "0ms"), (.milliseconds(999), "999ms"), (.milliseconds(1000), "1.00s"),
        (.milliseconds(3214), "3.21s"), (.milliseconds(59_999), "59.99s"), (.seconds(60), "1m00s"),
        (.seconds(123), "2m03s"), (.seconds(3599), "59m59s"), (.seconds(3600), "1h00m"), (.seconds(3720), "1h02m"),
    ])
    func durationsAtTheBoundaries(duration: Duration, text: String) {
        #expect(DurationFormat.format(duration) == text)
    }

    @Test func durationsParseWithUnits() {
        #expect(Duration.parse("500ms") == .milliseconds(500))
        #expect(Duration.parse("30s") == .seconds(30))
        #expect(Duration.parse("1.5s") == .milliseconds(1500))
        #expect(Duration.parse("5m") == .seconds(300))
        #expect(Duration.parse("2h") == .seconds(7200))
        #expect(Duration.parse("10") == .seconds(10))
        for bad in ["", "s", "-1s", "1x", "1.2.3s", "inf"] { #expect(Duration.parse(bad) == nil, "\(bad)") }
    }

    @Test func threeDecimalsWithoutFoundation() {
        #expect(String(format3: 0) == "0.000")
        #expect(String(format3: 1.2345) == "1.235")
        #expect(String(format3: 1796237673.0291) == "1796237673.029")
        #expect(String(format3: 0.05) == "0.050")
    }

    @Test func jsonStringsAreEscaped() {
        #expect(JSONText.string("a\"b\\c\nd\u{01}") == #""a\"b\\c\nd\u0001""#)
    }

    @Test func sanitizeShowsControlCharacters() {
        #expect(SafeText.sanitize("a\u{1B}[31mb\u{07}\u{9B}") == "a^[[31mb^G\\u{9b}")
    }

    @Test func xmlEscapingDropsCharactersXmlCannotHold() {
        #expect(JUnitFormat.escape("<a & \"b\">\u{01}\t", quotes: true) == "&lt;a &amp; &quot;b&quot;&gt;\t")
    }
}

@Suite struct Parsing {
    private func options(_ arguments: [String]) throws -> Options {
        guard case .run(let options) = try OptionParser.parse(arguments.map { Array($0.utf8) }) else {
            throw UsageError.noCommand
        }
        return options
    }

    @Test func optionsStopAtTheFirstOperand() throws {
        let parsed = try options(["-j4", "make", "-k", ":::", "make", "test"])
        #expect(parsed.jobs == .count(4))
        #expect(parsed.source == .commands([Array("make -k".utf8), Array("make test".utf8)]))
    }

    @Test func longOptionsTakeEqualsOrTheNextWord() throws {
        #expect(try options(["--jobs=50%", "true"]).jobs == .percentOfCPUs(50))
        #expect(try options(["--timeout", "2s", "true"]).timeout == .seconds(2))
        #expect(try options(["-qv", "true"]).quiet)
    }

    @Test func haltPolicies() throws {
        #expect(try options(["--halt", "now,fail=2", "x"]).halt == HaltPolicy(urgency: .now, trigger: .failures(2)))
        #expect(try options(["--halt", "soon,fail=10%", "x"]).halt == HaltPolicy(urgency: .soon, trigger: .failurePercent(10)))
        #expect(try options(["--halt", "now,success=1", "x"]).halt == HaltPolicy(urgency: .now, trigger: .successes(1)))
        #expect(try options(["--fail-fast", "x"]).halt == .failFast)
    }

    @Test func eachForms() throws {
        #expect(
            try options(["--each", "t {}", "a", "b"]).source
                == .template(Array("t {}".utf8), lists: [.words([Array("a".utf8), Array("b".utf8)])], linked: []))
        #expect(try options(["--each", "t"]).source == .templateLines(Array("t".utf8), file: nil))
        #expect(try options(["-a", "f", "--each", "t"]).source == .templateLines(Array("t".utf8), file: "f"))
    }

    @Test func wordsAfterTheTemplateAreArgumentsEvenWithADash() throws {
        let parsed = try options(["--each", "gzip -k {}", "-q", "-rf.txt", "--", "a"])
        #expect(!parsed.quiet)
        #expect(
            parsed.source
                == .template(
                    Array("gzip -k {}".utf8), lists: [.words(["-q", "-rf.txt", "--", "a"].map { Array($0.utf8) })], linked: []))
        // A `--` right after the template only marks where the arguments begin.
        #expect(
            try options(["--each", "rm {}", "--", "-x"]).source
                == .template(Array("rm {}".utf8), lists: [.words([Array("-x".utf8)])], linked: []))
    }

    @Test func aLongOptionAfterTheTemplateIsRefusedUnlessDashDashSaysArgumentsBegin() throws {
        #expect(throws: UsageError.optionAfterTemplate("--dry-run")) { try options(["--each", "echo {}", "--dry-run", "a"]) }
        #expect(throws: UsageError.optionAfterTemplate("--jobs=2")) { try options(["--each", "echo {}", "a", "--jobs=2"]) }
        #expect(throws: UsageError.optionAfterTemplate("--dry-run")) { try options(["--each", "echo {}", ":::", "--dry-run"]) }
        #expect(
            try options(["--each", "echo {}", "--", "--dry-run"]).source
                == .template(Array("echo {}".utf8), lists: [.words([Array("--dry-run".utf8)])], linked: []))
        // Words that are no option of futurerun's stay arguments.
        #expect(throws: Never.self) { try options(["--each", "echo {}", "--not-an-option", "-rf.txt", "-q"]) }
    }

    @Test func aValueOptionRefusesAnOptionAsItsValue() {
        #expect(throws: UsageError.optionAsValue(option: "--joblog", placeholder: "FILE", value: "-j4", longOption: "--joblog")) {
            try options(["--joblog", "-j4", "echo x"])
        }
        #expect(
            throws: UsageError.optionAsValue(option: "--results", placeholder: "DIR", value: "--dry-run", longOption: "--results")
        ) {
            try options(["--results", "--dry-run", "echo x"])
        }
        #expect(throws: UsageError.optionAsValue(option: "-a", placeholder: "FILE", value: "-q", longOption: "--arg-file")) {
            try options(["-a", "-q"])
        }
    }

    @Test func aValueThatOnlyLooksLikeAnOptionIsAccepted() throws {
        #expect(try options(["--joblog=-j4", "x"]).jobLog == .init("-j4"))
        #expect(try options(["--joblog", "+j.log", "x"]).jobLog == Options.JobLogTarget(path: "j.log", appends: true))
        #expect(try options(["-a", "-"]).source == .commandLines(file: "-"))
        #expect(try options(["--names", "-x,y", "x"]).names == ["-x", "y"])
    }

    @Test func durationsTakeCompoundsAndZeroTimeoutMeansNone() throws {
        #expect(try options(["--timeout", "1m30s", "x"]).timeout == .seconds(90))
        #expect(try options(["--timeout", "0", "x"]).timeout == nil)
        #expect(try options(["--timeout", "0s", "x"]).timeout == nil)
        #expect(Duration.parse("1h2m3.5s") == .milliseconds(3_723_500))
        for bad in ["1m30", "1x", "m", "1m-2s", "--1"] { #expect(Duration.parse(bad) == nil, "\(bad)") }
    }

    @Test func gnuParallelSpellings() throws {
        #expect(try options(["::::", "jobs.txt"]).source == .commandLines(file: "jobs.txt"))
        #expect(
            try options(["--each", "t", "::::", "a", "b", ":::", "1"]).source
                == .template(Array("t".utf8), lists: [.file("a"), .file("b"), .words([Array("1".utf8)])], linked: []))
        #expect(try options(["--each", "t", "::::", "a"]).source == .templateLines(Array("t".utf8), file: "a"))
        #expect(try options(["-k", "-n", "3", "--each", "t", "x"]).maxArguments == 3)
        #expect(try options(["--colsep", ",", "--each", "t"]).columnSeparator == ",")
        #expect(try options(["--bar", "x"]).progress == .on)
        #expect(try options(["--eta", "x"]).progress == .on)
    }

    @Test func optionsThatNeedOthersSaySo() {
        #expect(
            throws: UsageError.needsOption(
                option: "-n/--max-args", needs: "--each TEMPLATE", example: "futurerun -n 10 --each 'echo {}' *.log")
        ) {
            try options(["-n", "2", "echo"])
        }
        #expect(throws: UsageError.needsOneList("--colsep")) { try options(["--colsep", ",", "--each", "t", "a", ":::", "b"]) }
        #expect(throws: UsageError.jobFileSeparatorMisused) { try options(["echo", "::::", "f"]) }
        #expect(throws: (any Error).self) { try options(["--colsep", "(", "--each", "t"]) }
    }

    @Test func errorsNameTheProblem() throws {
        #expect(throws: UsageError.unknownOption("--nope")) { try options(["--nope"]) }
        // A unique prefix is the option, as in GNU parallel; an ambiguous one names the options;
        // a near miss is suggested.
        #expect(try options(["--dry", "echo"]).dryRun)
        #expect(throws: UsageError.ambiguousOption("--job", candidates: ["--jobs", "--joblog"])) {
            try options(["--job", "2", "echo"])
        }
        #expect(throws: UsageError.unknownOption("--jbos", suggestion: "--jobs")) { try options(["--jbos", "2", "echo"]) }
        #expect(throws: UsageError.unknownOption("--zzzz")) { try options(["--zzzz", "echo"]) }
        #expect(throws: UsageError.emptySegment(position: 2)) { try options(["a", ":::", ":::", "b"]) }
        #expect {
            try options([":::", "echo 1", "echo 2"])
        } throws: { error in
            (error as? UsageError)?.description.contains("futurerun's commands are separated by ':::'") == true
        }
        #expect(throws: UsageError.noTemplate) { try options(["--each"]) }
    }
}

@Suite struct Counting {
    @Test func exitStatusFollowsGnuParallel() {
        var tally = Tally()
        #expect(tally.exitStatus == 0)
        for _ in 0..<3 { tally = adding(.unrunnable("x"), to: tally) }
        #expect(tally.exitStatus == 3)
        for _ in 0..<200 { tally = adding(.unrunnable("x"), to: tally) }
        #expect(tally.exitStatus == 101)
    }

    private func adding(_ status: JobStatus, to tally: Tally) -> Tally {
        var tally = tally
        let job = Job(number: 1, name: "x", body: .invalid("x"))
        let run = CommandRun.neverStarted()
        tally.add(JobOutcome(job: job, status: status, result: run.result.value, attempts: 1, commandLine: []))
        return tally
    }

    @Test func linePrefixerAddsOnlyPrefixes() {
        var prefixer = LinePrefixer(prefix: Array("t\t".utf8))
        #expect(prefixer.process(Array("a\nb".utf8)) == Array("t\ta\nt\tb".utf8))
        #expect(prefixer.process(Array("c\n".utf8)) == Array("c\n".utf8))
    }

    @Test func tailKeeperKeepsTheLastLines() {
        var tail = TailKeeper(limit: 2)
        tail.feed(Array("1\n2\n3\n4".utf8))
        #expect(tail.text == ["3", "4"])
    }
}

@Suite struct GNUShellChoice {
    @Test func theShellIsTheOneGNUParallelWouldUse() {
        #expect(GNUShell.choose(parallelShell: "/bin/bash", parent: "/usr/bin/zsh", loginShell: nil) == "/bin/bash")
        #expect(GNUShell.choose(parallelShell: nil, parent: "/usr/bin/make", loginShell: "/bin/zsh") == "/bin/zsh")
        #expect(GNUShell.choose(parallelShell: nil, parent: "/usr/bin/fish", loginShell: "/usr/bin/fish") == "/bin/sh")
    }
}

/// How a long option that is not spelled out is read (``OptionSpelling``), as values.
@Suite struct OptionSpellings {
    private let spelling = OptionSpelling(names: [["--jobs"], ["--joblog"], ["--dry-run", "--dryrun"], ["--timeout"]])

    @Test func aUniquePrefixIsItsOptionAndAShortOneNone() {
        #expect(spelling.options(abbreviatedAs: "--dry") == [2])
        #expect(spelling.options(abbreviatedAs: "--job") == [0, 1])
        #expect(spelling.options(abbreviatedAs: "--") == [])
        #expect(spelling.options(abbreviatedAs: "--x") == [])
    }

    @Test func theNearestNameWithinTwoEditsIsSuggested() {
        #expect(spelling.suggestion(for: "--jbos") == "--jobs")
        #expect(spelling.suggestion(for: "--timout") == "--timeout")
        #expect(spelling.suggestion(for: "--nothing-like-it") == nil)
        #expect(OptionSpelling.distance("ab", "ba") == 1 && OptionSpelling.distance("", "abc") == 3)
    }
}
