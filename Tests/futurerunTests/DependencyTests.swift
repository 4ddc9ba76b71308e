import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Jobs that wait for jobs (SPEC.md §3), on the binary: waiting and order read from the stamps the
/// jobs record (`s.NAME` when a job starts, `e.NAME` when it ends), not from wall-clock bounds.
@Suite struct JobsThatWaitForJobs {
    /// `@NAME [header words] sleep SECONDS`, recording its start and end in `scratch`.
    private func job(
        _ name: String, _ header: String = "", sleep: Double = 0, then command: String = "true", in scratch: Scratch
    )
        -> String
    {
        let stamp = { (kind: String) in "date +%s%N > \(quoted(scratch.file("\(kind).\(name)")))" }
        return "@\(name) \(header) \(stamp("s")); sleep \(sleep); \(command); \(stamp("e"))"
    }

    private func stamp(_ kind: String, _ name: String, _ scratch: Scratch) -> Int? {
        scratch.read("\(kind).\(name)").flatMap { Int($0.filter(\.isNumber)) }
    }

    @Test func aJobStartsOnlyAfterWhatItWaitsForAndHoldsNoSlotMeanwhile() throws {
        // -j2: slow runs; dep waits for it without a slot, so free1 and then free2 run beside slow.
        let scratch = Scratch()
        let run = futurerun([
            "-q", "-j2", job("slow", sleep: 0.8, in: scratch), ":::", job("dep", "after=slow", in: scratch), ":::",
            job("free1", sleep: 0.2, in: scratch), ":::", job("free2", sleep: 0.2, in: scratch),
        ])
        #expect(run.status == 0, "\(run.err)")
        let s = { (name: String) throws in try #require(self.stamp("s", name, scratch)) }
        let e = { (name: String) throws in try #require(self.stamp("e", name, scratch)) }
        #expect(try s("dep") >= e("slow"), "dep started before slow ended")
        #expect(try s("free2") < e("slow"), "the waiting job held a slot: free2 waited for slow")
    }

    @Test func amongReadyJobsTheEarliestStartsFirst() throws {
        // -j1: root runs while job 2 waits for it and job 3 is queued; when root ends, job 2 is the
        // earliest ready job and takes the slot before job 3.
        let scratch = Scratch()
        let run = futurerun([
            "-q", "-j1", job("root", sleep: 0.3, in: scratch), ":::", job("second", "after=root", in: scratch), ":::",
            job("third", in: scratch),
        ])
        #expect(run.status == 0, "\(run.err)")
        #expect(try #require(stamp("s", "second", scratch)) < #require(stamp("s", "third", scratch)))
    }

    @Test func dependantsOfAFailureAreSkippedAllTheWayDownInTheirPlaces() throws {
        let scratch = Scratch()
        scratch.write(
            "jobs",
            """
            @gen echo gen
            @build after=gen echo build; exit 2
            @lint echo lint
            @test after=build echo test
            @pkg after=test,lint echo pkg
            @docs after-any=build echo docs
            echo plain

            """)
        let run = futurerun([
            "-j2", "--json", scratch.file("j.jsonl"), "--junit", scratch.file("r.xml"), "--joblog", scratch.file("log"),
            "-a", scratch.file("jobs"),
        ])
        #expect(run.status == 1, "one failed job; skipped jobs are not failures")
        #expect(run.out == "gen\nbuild\nlint\ndocs\nplain\n")
        // Streamed input: a status line says [N/7] once the list has been read, [N] before.
        let lines = run.errLines.map { $0.replacing("/7]", with: "]") }
        #expect(lines.count >= 8, "\(lines)")
        #expect(lines[0].hasPrefix("ok   [1] gen "))
        #expect(lines[1].hasPrefix("FAIL [2] build  exit 2"))
        #expect(lines[2].hasPrefix("ok   [3] lint "))
        #expect(lines[3] == "SKIP [4] test  needs build, which failed (exit 2)")
        #expect(lines[4] == "SKIP [5] pkg  needs test, which was skipped")
        #expect(lines[5].hasPrefix("ok   [6] docs "), "after-any runs whatever build did")
        #expect(lines[6].hasPrefix("ok   [7] echo plain "))
        #expect(lines[7].contains("4 ok, 1 failed, 2 skipped"))
        let json = scratch.read("j.jsonl") ?? ""
        #expect(json.contains(#""name":"pkg","command":"echo pkg","status":"skipped""#), "\(json)")
        #expect(json.contains(#""skipped":"needs test, which was skipped""#))
        #expect(scratch.read("r.xml")?.contains(#"<skipped message="needs build, which failed (exit 2)"/>"#) == true)
        let joblog = scratch.read("log") ?? ""
        #expect(joblog.split(separator: "\n").count == 6, "header and the five jobs that ran: \(joblog)")
        #expect(!joblog.contains("echo pkg") && !joblog.contains("echo test"))
    }

    @Test func theTimeoutCountsRunningTimeOnly() {
        // Waiting 0.6 s, then running 0.4 s: over the 0.8 s timeout counted from the start of the
        // run, within it counted from the job's own start.
        let scratch = Scratch()
        let run = futurerun([
            "-q", "--timeout", "800ms", job("first", sleep: 0.6, in: scratch), ":::",
            job("then", "after=first", sleep: 0.4, in: scratch),
        ])
        #expect(run.status == 0, "\(run.err)")
    }

    @Test func dependantsWaitForTheLastAttempt() throws {
        // flaky fails its first attempt; its dependant starts after the second attempt ended.
        let scratch = Scratch()
        let counter = quoted(scratch.file("count"))
        let flaky =
            "@flaky echo x >> \(counter); [ $(wc -l < \(counter)) -ge 2 ]; r=$?; date +%s%N > \(quoted(scratch.file("e.flaky"))); exit $r"
        let run = futurerun(["-q", "--retries", "2", flaky, ":::", job("after", "after=flaky", in: scratch)])
        #expect(run.status == 0, "\(run.err)")
        #expect(scratch.read("count") == "x\nx\n")
        #expect(try #require(stamp("s", "after", scratch)) >= #require(stamp("e", "flaky", scratch)))
    }

    @Test func failFastStartsNoWaitingJob() {
        let scratch = Scratch()
        let run = futurerun(["--fail-fast", "-j2", "@a exit 1", ":::", job("b", "after-any=a", in: scratch)])
        #expect(run.status == 1)
        #expect(stamp("s", "b", scratch) == nil, "a waiting job started after the run halted")
        // b either was never handed over (the halt came first) or waited and was not started.
        #expect(run.err.contains("0 ok, 1 failed"), "\(run.err)")
        #expect(!run.err.contains("] b "), "no status line for a job that never started")
    }

    @Test func templatesNameTheirJobsWithReplacementStrings() {
        let run = futurerun(["-q", "-j3", "--each", "@build-{} echo built {}", "a", "b"])
        #expect(run.status == 0)
        #expect(run.out == "built a\nbuilt b\n")
        let dry = futurerun(["--dry-run", "--each", "@t-{} after-any=t-a echo {}", ":::", "b", "c"])
        #expect(dry.status == 255, "t-a is no job of this list")
        #expect(dry.err.contains("@t-b needs 't-a', and no job has that name"))
    }

    @Test func dryRunPrintsTheGraphInItsOrder() {
        let run = futurerun(["--dry-run", "@gen ./codegen", ":::", "@build after=gen make", ":::", "echo plain"])
        #expect(run.out == "./codegen  # @gen\nmake  # @build after=gen\necho plain\n")
    }

    @Test(arguments: [
        (["echo a", ":::", "@x after=y echo b"], "@x needs 'y', and no job has that name"),
        (["@b after=a echo b", ":::", "@a echo a"], "@b needs 'a', which comes after it"),
        (["@x echo a", ":::", "@x echo b"], "@x is the name of two jobs"),
        (["@x/y echo a"], "'x/y' is not a job name"),
    ])
    func aBadGraphInAListKnownBeforeTheRunRunsNothing(arguments: [String], message: String) {
        let scratch = Scratch()
        let run = futurerun(arguments + [":::", "touch \(quoted(scratch.file("ran")))"])
        #expect(run.status == 255)
        #expect(run.errLines.count == 1)
        #expect(run.err.contains(message), "\(run.err)")
        #expect(!scratch.exists("ran"))
    }

    @Test func inStreamedInputABadReferenceFailsThatJobOnly() {
        let run = futurerun(["-j1"], stdin: "@z echo z\n@x after=later echo x\n@later echo later\n@w after=z echo w\n")
        #expect(run.status == 1)
        #expect(run.out == "z\nlater\nw\n")
        #expect(run.err.contains("] x  @x needs 'later', which no earlier job is named"), "\(run.err)")
    }
}
