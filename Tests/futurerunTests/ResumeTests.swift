import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `--resume` after faults, checked against GNU parallel's own `--resume` on the same joblog.
@Suite struct ResumeAfterFaults {
    static let header = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand"

    /// What GNU parallel's `--resume` runs of `jobs` with a copy of `joblog`.
    static func gnuResume(_ joblog: String, _ jobs: [String], scratch: Scratch) -> String {
        let copy = scratch.file("gnu-\(Int.random(in: 0...999_999)).log")
        scratch.write(String(copy.split(separator: "/").last!), joblog)
        let line = "parallel -k -j2 --resume --joblog \(quoted(copy)) ::: " + jobs.map(quoted).joined(separator: " ")
        return String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self)
    }

    @Test func jobsAnInterruptStoppedRunOnResumeAsWithGnuParallel() throws {
        #expect(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let scratch = Scratch()
        let log = scratch.file("j.log")
        let marker = "41.\(getpid() % 1000)"
        // INT once the third job has ended and been reaped, while the slow one runs. The third job
        // writes its pid; a zombie still answers `kill -0`, so its failing means futurerun has reaped it.
        // (Waiting only for a file the job wrote raced its end: the INT could come before the reap;
        // the 0.1 s after the reap covers the step from reaping to recording the end.)
        let done = scratch.file("four.pid")
        let waitForBoth = """
            ( i=0; while [ ! -s \(quoted(done)) ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; \
            while kill -0 "$(cat \(quoted(done)))" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; \
            sleep 0.1; kill -INT $$ ) &\u{20}
            """
        let first = futurerun(
            [
                "-j2", "--joblog", log, "echo one", ":::", "sleep \(marker); echo two", ":::",
                "echo four; echo $$ > \(quoted(done))",
            ],
            shellPrefix: waitForBoth)
        #expect(first.status == 130)
        let joblog = try #require(scratch.read("j.log"))
        #expect(!joblog.contains("sleep \(marker)"), "a stopped job is not logged, as GNU parallel leaves it out: \(joblog)")
        let jobs = ["echo one", "echo two", "echo four"]
        let resumed = futurerun(["-q", "-j2", "--resume", "--joblog", log, jobs[0], ":::", jobs[1], ":::", jobs[2]])
        #expect(resumed.status == 0)
        #expect(resumed.out == "two\n")
        #expect(Self.gnuResume(joblog, jobs, scratch: scratch) == "two\n")
    }

    @Test func aJoblogWithCRLFLineEndsIsReadLineByLine() {
        let scratch = Scratch()
        scratch.write(
            "j.log",
            [Self.header, "1\t:\t1.0\t0.1\t0\t3\t0\t0\techo a", "2\t:\t1.0\t0.1\t0\t3\t0\t0\techo b", ""].joined(
                separator: "\r\n"))
        let run = futurerun(["-q", "--resume", "--joblog", scratch.file("j.log"), "echo a", ":::", "echo b", ":::", "echo c"])
        #expect(run.out == "c\n")
        #expect(run.err == "")
    }

    @Test func resumeStartsItsFirstRecordOnALineOfItsOwn() throws {
        let scratch = Scratch()
        // Cut mid-line, as by a run killed while writing.
        scratch.write("j.log", Self.header + "\n1\t:\t1.0\t0.1\t0\t2\t0\t0\techo a\n2\t:\t1.0\t0.1\t0\t2\t0")
        let run = futurerun(["-q", "--resume", "--joblog", scratch.file("j.log"), "echo a", ":::", "echo b"])
        #expect(run.out == "b\n")
        #expect(run.err.contains("1 lines of"), "the cut line is said to be no record: \(run.err)")
        let lines = try #require(scratch.read("j.log")).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.last?.hasPrefix("2\t:\t") == true && lines.last?.hasSuffix("\techo b") == true, "\(lines)")
        #expect(
            lines.dropFirst().allSatisfy {
                $0.split(separator: "\t", omittingEmptySubsequences: false).count == 9 || $0.hasPrefix("2\t:\t1.0")
            })
    }

    @Test func aDependantLearnsHowItsSkippedPrerequisiteReallyEnded() {
        let scratch = Scratch()
        scratch.write("j.log", Self.header + "\n1\t:\t1.0\t0.1\t0\t0\t-1\t15\tsleep 9\n2\t:\t1.0\t0.1\t0\t0\t0\t9\tkill -9 $$\n")
        let run = futurerun([
            "--resume", "--joblog", scratch.file("j.log"), "@a sleep 9", ":::", "@b kill -9 $$", ":::", "@c after=a echo c",
            ":::",
            "@d after=b echo d",
        ])
        #expect(run.err.contains("needs a, which timed out"), "\(run.err)")
        #expect(run.err.contains("needs b, which failed (signal 9"), "\(run.err)")
        #expect(!run.err.contains("exit 1"), "\(run.err)")
    }

    @Test func shardTimingsReadWhatOtherToolsWriteAndSayWhatTheyLeftOut() {
        let scratch = Scratch()
        let long = String(repeating: "n", count: 60)
        // jq and Python's json.dumps put a space after the colons; a name longer than a label.
        scratch.write(
            "t.jsonl",
            "{\"name\": \"\(long)\", \"command\": \"x\", \"wall\": 9.0}\r\n{\"name\": \"b\", \"wall\": 1.0}\n{\"name\": \"c\", \"wall\": \"nan\"}\n{\"wall\": -1}\n"
        )
        let run = futurerun(
            [
                "--dry-run", "--shard", "1/2", "--shard-timings", scratch.file("t.jsonl"), "--names", "\(long),b,z", "true",
                ":::", "true", ":::", "true",
            ])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("used 2 records, skipped 2"), "\(run.err)")
        // The 9 s job alone on shard 1, by its whole name.
        #expect(run.err.contains("shard 1/2: 1 of 3 jobs (expected 9.00s"), "\(run.err)")
    }

    @Test(arguments: ["nan", "inf", "1e300", "-5", "0x1p1023"])
    func timesNoDurationHoldsAreSkippedNeverACrash(time: String) {
        let scratch = Scratch()
        for (name, text) in [
            ("j.log", Self.header + "\n1\t:\t1.0\t\(time)\t0\t0\t0\t0\ttrue a\n"),
            ("t.jsonl", "{\"name\":\"a\",\"wall\":\(time)}\n"),
            ("t.xml", "<testsuites><testsuite><testcase name=\"a\" time=\"\(time)\"/></testsuite></testsuites>\n"),
        ] {
            scratch.write(name, text)
            let run = futurerun([
                "--dry-run", "--shard", "1/2", "--shard-timings", scratch.file(name), "--each", "true {}", "a", "b",
            ])
            #expect(run.status == 0, "\(name) \(time): \(run.err)")
            #expect(run.err.contains("used 0 records, skipped 1"), "\(name) \(time): \(run.err)")
        }
    }

    @Test func hugeShardCountsAndPercentagesAreNumbersNotCrashes() {
        let shard = futurerun(["--dry-run", "--shard", "1/9223372036854775807", "--each", "true {}", "a", "b"])
        #expect(shard.status == 0)
        let auto = futurerun(
            ["--dry-run", "--shard", "auto", "--each", "true {}", "a", "b"],
            environment: [("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "9223372036854775807")])
        #expect(auto.status == 0, "\(auto.err)")
        let width = futurerun(["-q", "-j", "9223372036854775807%", "echo ok"])
        #expect(width.status == 0)
        #expect(width.out == "ok\n")
        let timeout = futurerun(["-q", "--timeout", "0.0000001ms", "sleep 5"])
        #expect(timeout.status == 1, "the shortest limit, not none")
    }
}
