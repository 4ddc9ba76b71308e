@testable import FutureRunKit
import FutureCore
import Testing

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
        #expect(Style.sanitize("a\u{1B}[31mb\u{07}\u{9B}") == "a^[[31mb^G\\u{9b}")
    }

    @Test func xmlEscapingDropsCharactersXmlCannotHold() {
        #expect(JUnitReport.escape("<a & \"b\">\u{01}\t", quotes: true) == "&lt;a &amp; &quot;b&quot;&gt;\t")
    }
}

@Suite struct Templates {
    private func expand(_ template: String, _ arguments: [String], job: Int = 1, slot: Int = 1) -> String {
        String(decoding: Template(Array(template.utf8)).expand(arguments: arguments.map { Array($0.utf8) }, jobNumber: job, slot: slot), as: UTF8.self)
    }

    @Test func plainContextQuotesOnlyWhenNeeded() {
        #expect(expand("gzip {}", ["a.log"]) == "gzip a.log")
        #expect(expand("gzip {}", ["a b.log"]) == "gzip 'a b.log'")
        #expect(expand("gzip {}", ["it's"]) == #"gzip 'it'\''s'"#)
        #expect(expand("gzip {}", [""]) == "gzip ''")
    }

    @Test func doubleQuotedContextEscapesItsSpecialCharacters() {
        #expect(expand("echo \"{}\"", ["$(x) `y` \"z\" \\"]) == #"echo "\$(x) \`y\` \"z\" \\""#)
    }

    @Test func singleQuotedContextClosesAndReopensAroundQuotes() {
        #expect(expand("echo '{}'", ["a'b"]) == #"echo 'a'\''b'"#)
    }

    @Test func commandSubstitutionInsideQuotesIsAPlainContext() {
        #expect(expand("echo \"$(basename {})\"", ["a b"]) == "echo \"$(basename 'a b')\"")
    }

    @Test func nonReplacementBracesStayLiteral() {
        #expect(expand("echo ${HOME} {a,b} {x}", ["arg"]) == "echo ${HOME} {a,b} {x} arg")
    }

    @Test func numberedListsAndTransforms() {
        #expect(expand("cp {1} {2//}/{1/.}.bak", ["src/a.txt", "out/dir/x"]) == "cp src/a.txt out/dir/a.bak")
        #expect(expand("echo {#} {%}", ["z"], job: 7, slot: 3) == "echo 7 3 z")
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
        #expect(try options(["--each", "t {}", "a", "b"]).source == .template(Array("t {}".utf8), lists: [[Array("a".utf8), Array("b".utf8)]]))
        #expect(try options(["--each", "t"]).source == .templateLines(Array("t".utf8), file: nil))
        #expect(try options(["-a", "f", "--each", "t"]).source == .templateLines(Array("t".utf8), file: "f"))
    }

    @Test func errorsNameTheProblem() {
        #expect(throws: UsageError.unknownOption("--nope")) { try options(["--nope"]) }
        #expect(throws: UsageError.emptySegment(position: 1)) { try options([":::", "a"]) }
        #expect(throws: UsageError.noTemplate) { try options(["--each"]) }
    }
}

@Suite struct Counting {
    @Test func exitStatusFollowsGnuParallel() {
        var tally = Tally()
        #expect(tally.exitStatus == 0)
        for _ in 0..<3 { tally = adding(.invalid("x"), to: tally) }
        #expect(tally.exitStatus == 3)
        for _ in 0..<200 { tally = adding(.invalid("x"), to: tally) }
        #expect(tally.exitStatus == 101)
    }

    private func adding(_ status: JobStatus, to tally: Tally) -> Tally {
        var tally = tally
        let job = Job(number: 1, label: "x", body: .invalid("x"))
        let run = FutureCore.ProcessEngine.shared.neverStarted(.shell("true"))
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
