import FutureCore
import FutureProcess
import TestSupport
import Testing

@Suite struct OutputBehaviour {
    @Test func stdoutIsByteForByteWhatASequentialRunGives() {
        let jobs = [
            #"printf 'a\000b\377'"#, "head -c 200000 /dev/urandom | od -An | head -c 150000", #"printf 'no newline'"#,
            "echo err >&2; echo out",
        ]
        var arguments = ["-q", "-j4"]
        for (index, job) in jobs.enumerated() { arguments += (index > 0 ? [":::"] : []) + [job] }
        let parallel = futurerun(arguments)
        #expect(parallel.status == 0)
        let sequential = Command.shell(jobs.joined(separator: "; ") + " 2>/dev/null").run().value
        // The od job is random: compare the structure where it is deterministic.
        #expect(parallel.stdout.prefix(4) == [97, 0, 98, 255])
        #expect(parallel.stdout.count == sequential.stdout.count)
        #expect(parallel.out.hasSuffix("no newlineout\n"))
        #expect(parallel.err == "err\n")
    }

    @Test func oldestJobStreamsLiveWhileLaterOnesAreHeld() throws {
        // The first job's first line appears before it ends: its block is streamed, not held.
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "echo early; sleep 0.6; echo late", ":::", "echo second"],
            shellSuffix: " | while IFS= read -r line; do echo \"$line $(date +%s%N)\"; done > \(quoted(scratch.file("t")))")
        #expect(run.status == 0)
        let lines = (scratch.read("t") ?? "").split(separator: "\n").map { $0.split(separator: " ") }
        #expect(lines.map { String($0[0]) } == ["early", "late", "second"])
        try #require(lines.count == 3 && lines[0].count == 2 && lines[1].count == 2, "\(lines)")
        let early = try #require(Int(lines[0][1]))
        let late = try #require(Int(lines[1][1]))
        #expect(late - early > 400_000_000, "the first line came out before the job slept")
    }

    @Test func quietDropsStatusLinesAndSummary() {
        let run = futurerun(["-q", "echo x", ":::", "exit 3"])
        #expect(run.err == "")
        #expect(run.status == 1)
    }

    @Test func verboseShowsEachCommandLine() {
        let run = futurerun(["-v", "--each", "echo {}", "a b"])
        #expect(run.errLines.first == "echo 'a b'", "as GNU parallel prints it (on stderr here)")
    }

    @Test func tagPrefixesEveryLineWithTheLabelAndATab() {
        let run = futurerun(["-q", "--tag", "--names", "one,two", "printf 'a\\nb\\n'", ":::", "echo c >&2"])
        #expect(run.out == "one\ta\none\tb\n")
        #expect(run.err == "two\tc\n")
    }

    @Test func liveModePrintsWholeLinesPrefixedWithTheLabel() {
        let run = futurerun([
            "--live", "--names", "slow,fast", "echo s1; sleep 0.4; echo s2", ":::", "sleep 0.1; echo f1; printf tail",
        ])
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines == ["[slow] s1", "[fast] f1", "[fast] tail", "[slow] s2"])
        #expect(run.status == 0)
    }

    @Test func namesLabelJobsInStatusLines() {
        let run = futurerun(["--names", "lint,test", "true", ":::", "exit 2"])
        #expect(run.errLines[0].hasPrefix("ok   [1/2] lint  "))
        #expect(run.errLines[1].hasPrefix("FAIL [2/2] test  exit 2  "))
    }

    @Test func statusLinesNameSignalsTimeoutsAndMissingPrograms() {
        let run = futurerun(["--timeout", "300ms", "kill -TERM $$", ":::", "sleep 5", ":::", "nonexistent-program-xyz"])
        let status = run.errLines.filter { $0.hasPrefix("FAIL") }
        #expect(status.count == 3)
        #expect(status[0].contains("signal 15 (TERM)"))
        #expect(status[1].contains("timeout"))
        #expect(status[2].contains("exit 127"))
        #expect(run.status == 3)
    }

    @Test func summaryCountsJobsAndNamesTheSlowest() {
        let run = futurerun(["sleep 0.2", ":::", "true", ":::", "exit 1"])
        let summary = run.errLines.suffix(2)
        #expect(summary.first?.hasPrefix("3 jobs in ") == true)
        #expect(summary.first?.contains("2 ok, 1 failed") == true)
        #expect(summary.last?.hasPrefix("slowest: sleep 0.2 2") == true)
    }

    @Test func quietSuccessShowsOnlyFailuresAndReplaysTheirEndAtTheBottom() {
        let run = futurerun([
            "--quiet-success", "--names", "good,bad", "echo good-output", ":::", "echo bad-output; echo reason >&2; exit 4",
        ])
        #expect(!run.out.contains("good-output"))
        #expect(run.out.contains("bad-output"))
        let lines = run.errLines
        #expect(lines.suffix(3) == ["── bad failed; its last lines:", "  bad-output", "  reason"])
        // No line for the job that succeeded: failures and the summary only.
        #expect(!lines.contains { $0.hasPrefix("ok ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("FAIL [2/2] bad") } && lines.contains { $0.hasPrefix("2 jobs in ") }, "\(lines)")
    }

    @Test func controlCharactersInLabelsNeverReachTheTerminal() {
        let run = futurerun(["--each", "true", "\u{1B}[31mred\u{07}"])
        #expect(!run.err.contains("\u{1B}"))
        #expect(run.err.contains("^[[31mred^G"))
    }

    @Test func colorsOnlyWhenAskedOrOnATerminal() {
        #expect(!futurerun(["true"]).err.contains("\u{1B}["))
        #expect(futurerun(["--color", "always", "true"]).err.contains("\u{1B}[32m"))
        #expect(!futurerun(["--color", "auto", "true"], environment: [("NO_COLOR", "1")]).err.contains("\u{1B}["))
    }
}
