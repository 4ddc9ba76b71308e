import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `--cache`, `--explain`, `--rerun-failed` and flaky jobs, end to end: each job appends its
/// argument to `ran.log` when it really runs, so what the cache spared is counted, not timed.
@Suite struct CacheRuns {
    /// `count` input files `in/N` and a list of their numbers.
    private func inputs(_ count: Int, in scratch: Scratch) {
        mkdir(scratch.file("in"), 0o755)
        for number in 1...count { scratch.write("in/\(number)", "data \(number)\n") }
        scratch.write("list", (1...count).map(String.init).joined(separator: "\n") + "\n")
    }

    private func ran(_ scratch: Scratch) -> [String] {
        (scratch.read("ran.log") ?? "").split(separator: "\n").map(String.init)
    }

    private static let job = "cat in/{}; echo {} >> ran.log"

    @Test func aThousandJobsRunOnceThenOnlyTheOneWhoseInputChanged() throws {
        let scratch = Scratch()
        inputs(1000, in: scratch)
        let arguments = ["--cache", "c", "--cache-input", "in/{}", "-a", "list", "--each", Self.job]
        let first = futurerun(["-q", "-j4"] + arguments, directory: scratch.path)
        #expect(first.status == 0)
        #expect(ran(scratch).count == 1000)
        let expected = (1...1000).map { "data \($0)\n" }.joined()
        #expect(first.out == expected)

        let second = futurerun(["-j4", "--json", "j.json"] + arguments, directory: scratch.path)
        #expect(second.status == 0)
        #expect(ran(scratch).count == 1000, "no job ran the second time")
        #expect(second.out == expected, "each job's output replayed, in order")
        let lines = (scratch.read("j.json") ?? "").split(separator: "\n")
        #expect(lines.count == 1000 && lines.allSatisfy { $0.contains("\"path\":\"cached\"") })
        #expect(second.errLines.first == "ok   [1] 1  cached")
        #expect(second.errLines.last?.hasPrefix("1000 jobs in ") == true && second.err.contains("1000 ok (1000 cached)"))

        scratch.write("in/500", "new data\n")
        let third = futurerun(["-q", "--explain"] + arguments, directory: scratch.path)
        #expect(third.status == 0)
        #expect(ran(scratch).count == 1001 && ran(scratch).last == "500", "exactly the changed job ran")
        #expect(third.errLines == ["futurerun: --explain: job 500 (500) runs: input in/500 changed"])
        #expect(third.out == expected.replacing("data 500\n", with: "new data\n"))
    }

    @Test func theKeyCoversTheCommandTheNamedVariablesAndFailuresOnlyWhenAsked() {
        let scratch = Scratch()
        let run = { (command: String, extra: [String], value: String) in
            futurerun(
                ["-q", "--cache", "c", "--cache-env", "LEVEL", "--explain"] + extra + [command], environment: [("LEVEL", value)],
                directory: scratch.path)
        }
        _ = run("echo x >> ran.log; echo $LEVEL", [], "1")
        #expect(run("echo x >> ran.log; echo $LEVEL", [], "1").out == "1\n")
        #expect(ran(scratch).count == 1)
        let changed = run("echo x >> ran.log; echo $LEVEL", [], "2")
        #expect(changed.out == "2\n" && ran(scratch).count == 2)
        #expect(changed.errLines == ["futurerun: --explain: job 1 (echo x >> ran.log; echo $LEVEL) runs: $LEVEL changed"])
        // A failure is not kept by default; with --cache-failures it is, and replayed as one.
        for _ in 1...2 { #expect(run("echo y >> ran.log; exit 3", [], "1").status == 1) }
        #expect(ran(scratch).count == 4)
        for _ in 1...2 { #expect(run("echo z >> ran.log; echo bad >&2; exit 3", ["--cache-failures"], "1").status == 1) }
        #expect(ran(scratch).count == 5)
        #expect(run("echo z >> ran.log; echo bad >&2; exit 3", ["--cache-failures"], "1").err == "bad\n")
    }

    @Test func tagsAreNotStoredWithTheOutput() {
        let scratch = Scratch()
        for _ in 1...2 {
            let run = futurerun(
                ["-q", "--tag", "--cache", "c", "--each", "echo {}; echo {} >> ran.log", "a"], directory: scratch.path)
            #expect(run.out == "a\ta\n")
        }
        #expect(ran(scratch) == ["a"])
    }

    @Test func twoProcessesSharingACacheNeverCorruptIt() throws {
        let scratch = Scratch()
        inputs(300, in: scratch)
        // Outputs of many sizes, some past a pipe's buffer; a small bound evicts while both write.
        let job = "head -c $(expr {} \\* 397) /dev/zero | tr '\\0' x; echo; cat in/{}"
        let arguments = [
            "-q", "-j3", "--cache", "c", "--cache-max", "8M", "--cache-input", "in/{}", "-a", "list", "--each", job,
        ]
        let line = ([futurerunPath] + arguments).map(quoted).joined(separator: " ")
        let both = Command.shell("\(line) > one.out & \(line) > two.out & wait")
        var command = both
        command.workingDirectory = scratch.path
        command.timeout = .seconds(120)
        #expect(command.run().value.status == .exited(0))
        let expected = try #require(scratch.read("one.out"))
        #expect(expected.utf8.count > 10_000_000)
        #expect(scratch.read("two.out") == expected)
        let third = futurerun(arguments, directory: scratch.path)
        #expect(third.status == 0)
        #expect(third.out == expected, "every entry that was trusted replays the job's own output")
        #expect(scratch.entries("c/tmp").isEmpty, "nothing left half-written")
    }

    @Test func anEntryCutShortByACrashIsNeverTrusted() throws {
        let scratch = Scratch()
        let arguments = ["-q", "--cache", "c", "--each", "seq 1 20000; echo {} >> ran.log", "a"]
        #expect(futurerun(arguments, directory: scratch.path).status == 0)
        let folder = try #require(scratch.entries("c/entries").first)
        let name = try #require(scratch.entries("c/entries/\(folder)").first)
        let path = scratch.file("c/entries/\(folder)/\(name)")
        // A crash after the rename but before the data reached the disk leaves the file short; one
        // while writing leaves a file in tmp/.
        #expect(truncate(path, 5000) == 0)
        scratch.write("c/tmp/write-XXXXXX", "futurerun-cache-entry 1\n")
        let again = futurerun(arguments, directory: scratch.path)
        #expect(again.out == (1...20000).map { "\($0)\n" }.joined())
        #expect(ran(scratch) == ["a", "a"], "the short entry was not replayed")
        #expect(futurerun(arguments, directory: scratch.path).out == again.out)
        #expect(ran(scratch) == ["a", "a"], "the entry written again is whole")
    }

    @Test func aFlakyJobIsReportedFlakyInJUnitTheSurefireSchemaAccepts() throws {
        let scratch = Scratch()
        let flaky = "if [ -e once ]; then echo passed; else touch once; echo broken >&2; exit 1; fi"
        let run = futurerun(
            ["--retries", "3", "--junit", "r.xml", "--json", "j.json", "--cache", "c", flaky, ":::", "exit 4", ":::", "true"],
            directory: scratch.path)
        #expect(run.status == 1, "the job that failed for good fails the run; the flaky one does not")
        #expect(run.err.contains("after 2 attempts, flaky"))
        #expect(run.err.contains("1 failed") && run.err.contains("(1 flaky)"))
        let xml = try #require(scratch.read("r.xml"))
        #expect(
            xml.contains(
                "<flakyFailure message=\"exit 1\" type=\"failure\"><stackTrace>attempt 1 of 2: exit 1</stackTrace></flakyFailure>"
            ))
        #expect(xml.ranges(of: "<rerunFailure").count == 2, "two reruns of the job that failed for good")
        #expect(scratch.read("j.json")?.contains("\"flaky\":true") == true)
        // A second run: the two that passed are replayed from the cache, marked so.
        #expect(
            futurerun(
                ["-q", "--junit", "r2.xml", "--cache", "c", flaky, ":::", "exit 4", ":::", "true"], directory: scratch.path
            ).status == 1)
        #expect(scratch.read("r2.xml")?.ranges(of: "group=\"cached\"").count == 2)
        let schema =
            String(#filePath.split(separator: "/Tests/").first!) + "/Tests/futurerunTests/Schemas/surefire-test-report.xsd"
        for report in ["r.xml", "r2.xml"] {
            let check = Command.shell(
                "xmllint --xpath /testsuites/testsuite \(report) > suite.xml && xmllint --noout --schema \(quoted(schema)) suite.xml"
            )
            var command = check
            command.workingDirectory = scratch.path
            let result = command.run().value
            #expect(result.status == .exited(0), "\(report): \(String(decoding: result.stderr.bytes(), as: UTF8.self))")
        }
        // The schema is no formality: a rerun without its stackTrace is refused.
        scratch.write(
            "bad.xml",
            "<testsuite name=\"x\" tests=\"1\" errors=\"0\" skipped=\"0\" failures=\"0\"><testcase name=\"a\" time=\"1\">"
                + "<flakyFailure type=\"failure\"/></testcase></testsuite>")
        #expect(
            Command.shell("xmllint --noout --schema \(quoted(schema)) \(quoted(scratch.file("bad.xml"))) 2>/dev/null").run().value
                .status != .exited(0))
    }

    @Test func rerunFailedFromTheJUnitOfThreeShardsRerunsTheUnionOfTheirFailures() throws {
        let scratch = Scratch()
        let names = (1...12).map { "t\($0)" }
        let failing: Set = ["t2", "t5", "t7", "t11"]
        let job = "echo {} >> ran.log; case {} in " + failing.sorted().joined(separator: "|") + ") exit 1;; esac"
        var perShard: [[String]] = []
        for shard in 1...3 {
            let before = ran(scratch).count
            _ = futurerun(
                ["-q", "--shard", "\(shard)/3", "--junit", "r\(shard).xml", "--each", job] + names, directory: scratch.path)
            perShard.append(Array(ran(scratch).dropFirst(before)))
        }
        #expect(Set(perShard.joined()) == Set(names), "the shards ran every job once")
        #expect(perShard.filter { !Set($0).isDisjoint(with: failing) }.count >= 2, "the failures are spread over shards")
        scratch.write("ran.log", "")
        let rerun = futurerun(
            ["-q", "--rerun-failed", "r1.xml", "--rerun-failed", "r2.xml", "--rerun-failed", "r3.xml", "--each", job] + names,
            directory: scratch.path)
        #expect(rerun.status == 4)
        #expect(Set(ran(scratch)) == failing && ran(scratch).count == 4)
        #expect(
            rerun.errLines.first == "futurerun: --rerun-failed: running the 4 jobs that failed or did not finish in 3 reports")
        // With --shard, a shard reruns its own failures only.
        scratch.write("ran.log", "")
        _ = futurerun(
            [
                "-q", "--shard", "2/3", "--rerun-failed", "r1.xml", "--rerun-failed", "r2.xml", "--rerun-failed", "r3.xml",
                "--each", job,
            ]
                + names, directory: scratch.path)
        #expect(Set(ran(scratch)) == Set(perShard[1]).intersection(failing))
    }

    @Test func everyReportMarksCachedAndFlakyJobs() throws {
        let scratch = Scratch()
        let flaky = "if [ -e once ]; then echo passed; else touch once; exit 1; fi"
        let reports = ["--joblog", "log", "--timeline", "t.svg", "--retries", "2", "--cache", "c"]
        let first = futurerun(
            ["-q"] + reports + [flaky, ":::", "echo plain"], environment: [("GITHUB_STEP_SUMMARY", scratch.file("summary.md"))],
            directory: scratch.path)
        #expect(first.status == 0)
        #expect(scratch.read("summary.md")?.contains("⚠️ flaky: ok after 2 attempts") == true)
        #expect(scratch.read("summary.md")?.contains("1 flaky") == true)
        #expect(scratch.read("t.svg")?.contains("(flaky: it passed after 1 failed)") == true)
        let second = futurerun(
            ["-q"] + reports + [flaky, ":::", "echo plain"], environment: [("GITHUB_STEP_SUMMARY", scratch.file("summary.md"))],
            directory: scratch.path)
        #expect(second.out == "passed\nplain\n")
        let log = (scratch.read("log") ?? "").split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(log.suffix(2).map { String($0[1]) } == ["cached", "cached"], "the joblog's Host column")
        #expect(scratch.read("t.svg")?.contains("plain (cached)") == true)
        #expect(scratch.read("summary.md")?.contains("2 cached") == true)
    }

    @Test func theLeastRecentlyUsedEntryGoesFirst() {
        let scratch = Scratch()
        // Each entry holds 1,500 bytes of output and its header: two fit in 4,000 bytes, three do not.
        let run = { (name: String) in
            futurerun(
                ["-q", "--cache", "c", "--cache-max", "4K", "--each", "head -c 1500 /dev/zero; echo {} >> ran.log", name],
                directory: scratch.path)
        }
        _ = run("a")
        _ = run("b")
        _ = run("a")  // a hit: a is now the more recently used
        #expect(ran(scratch) == ["a", "b"])
        _ = run("c")  // past the bound: b goes
        _ = run("a")
        _ = run("b")
        #expect(ran(scratch) == ["a", "b", "c", "b"], "a stayed, b was evicted")
    }

    @Test func anOutputTooLargeToStoreIsShownAndSaidNotStored() {
        let scratch = Scratch()
        let arguments = ["-q", "--cache", "c", "--each", "head -c 70000000 /dev/zero; echo {} >> ran.log", "big"]
        for _ in 1...2 {
            let run = futurerun(arguments, shellSuffix: " > /dev/null", directory: scratch.path)
            #expect(run.status == 0)
            #expect(
                run.errLines == [
                    "futurerun: --cache: a job printed more than 64 MiB: shown, not stored; they run again next time"
                ])
        }
        #expect(ran(scratch) == ["big", "big"])
    }

    @Test func killedWhileWritingEntriesNeverReplaysAWrongOne() throws {
        let scratch = Scratch()
        // Big outputs, so that a kill often lands while an entry is being written.
        let job = "seq 1 $(expr {} \\* 40000)"
        let arguments = ["-q", "-j2", "--cache", "c", "--each", job] + (1...12).map(String.init)
        let line = ([futurerunPath] + arguments).map(quoted).joined(separator: " ")
        for delay in ["0.05", "0.1", "0.2", "0.3", "0.5"] {
            var command = Command.shell("\(line) > /dev/null & sleep \(delay); kill -9 $!; wait")
            command.workingDirectory = scratch.path
            _ = command.run().value
        }
        let expected = (1...12).map { number in (1...(number * 40000)).map { "\($0)\n" }.joined() }.joined()
        let after = futurerun(arguments, directory: scratch.path)
        #expect(after.status == 0)
        #expect(after.out == expected)
        #expect(futurerun(arguments, directory: scratch.path).out == expected, "and again, every entry replayed")
    }

    @Test func cacheOptionsNeedTheCacheAndBadReportsAreRefused() {
        let scratch = Scratch()
        let alone = futurerun(["--cache-input", "x", "true"])
        #expect(alone.status == 255)
        #expect(alone.errLines.count == 1 && alone.err.contains("'--cache-input' works only with --cache DIR"))
        scratch.write("notes.txt", "hello\n")
        let bad = futurerun(["--rerun-failed", scratch.file("notes.txt"), "echo ran"])
        #expect(bad.status == 255 && bad.out == "")
        #expect(bad.err.contains("no --junit or --joblog report"))
        let piped = futurerun(["--cache", scratch.file("c"), "--pipe", "cat"], stdin: "x\n")
        #expect(piped.status == 255 && !scratch.exists("c"))
        let dry = futurerun(["--dry-run", "--cache", scratch.file("c"), "echo x"])
        #expect(dry.out == "echo x\n" && !scratch.exists("c"), "a dry run makes no store")
    }
}
