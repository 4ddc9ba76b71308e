import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// CI at scale (SPEC.md §4) on the binary: shards, timings, resume, the step summary.
@Suite struct CIAtScale {
    private let names = (1...30).map { "test-\($0)" }

    /// The jobs `--shard K/N` runs, by what they print.
    private func shard(_ k: Int, _ n: Int, _ arguments: [String], extra: [String] = []) -> [String] {
        let run = futurerun(["-q"] + extra + ["--shard", "\(k)/\(n)", "--each", "echo {}"] + arguments)
        return run.out.split(separator: "\n").map(String.init)
    }

    @Test func theShardsTogetherRunEveryJobExactlyOnce() {
        let union = (1...4).flatMap { shard($0, 4, names) }
        #expect(union.sorted() == names.sorted())
        #expect(Set(union).count == union.count)
    }

    @Test func addingAJobMovesNoOtherJob() {
        for k in 1...3 {
            let before = Set(shard(k, 3, names))
            let after = Set(shard(k, 3, names + ["test-new"]))
            #expect(before.isSubset(of: after), "shard \(k): \(before.subtracting(after)) moved")
        }
    }

    @Test func jobNumbersStayThoseOfTheWholeList() {
        let run = futurerun(["-q", "--shard", "2/3", "--each", "echo {#} {}"] + names)
        for line in run.out.split(separator: "\n") {
            let fields = line.split(separator: " ")
            #expect(fields.count == 2 && fields[1] == "test-\(fields[0])", "\(line)")
        }
    }

    @Test func jobsJoinedByAfterStayOnOneShard() {
        let jobs = [
            "@gen echo gen", "@build after=gen echo build", "@a echo a", "@b echo b", "@c echo c", "@pkg after=build echo pkg",
        ]
        let all = (1...3).map { k in futurerun(["-q", "--shard", "\(k)/3"] + jobs.flatMap { [$0, ":::"] }.dropLast()).out }
        let holding = all.filter { $0.contains("gen\n") }
        #expect(holding.count == 1)
        #expect(holding.first == "gen\nbuild\npkg\n" || holding.first?.contains("gen\nbuild\n") == true, "\(all)")
        #expect(holding.first?.contains("pkg") == true)
    }

    @Test(arguments: [
        ("CI_NODE_INDEX", "CI_NODE_TOTAL", "2", "2/3"), ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "1", "2/3"),
        ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "1", "2/3"),
        ("BITBUCKET_PARALLEL_STEP", "BITBUCKET_PARALLEL_STEP_COUNT", "1", "2/3"), ("SLURM_PROCID", "SLURM_NTASKS", "1", "2/3"),
    ])
    func autoTakesEachCIsNodeVariables(index: String, total: String, value: String, same: String) {
        let auto = futurerun(
            ["-q", "--shard", "auto", "--each", "echo {}"] + names, environment: [(index, value), (total, "3")])
        let fixed = futurerun(["-q", "--shard", same, "--each", "echo {}"] + names)
        #expect(auto.status == 0)
        #expect(auto.out == fixed.out)
        #expect(auto.err.contains("futurerun: shard \(same): "), "\(auto.err)")
    }

    @Test func autoOutsideCIRunsEverythingAndSaysSo() {
        let run = futurerun(["-q", "--shard", "auto", "echo x"])
        #expect(run.out == "x\n")
        #expect(run.err.contains("no CI node variables are set"))
    }

    @Test(arguments: ["0/3", "4/3", "2", "x/y", "1/0"])
    func aBadShardIsRefused(value: String) {
        let run = futurerun(["--shard", value, "echo x"])
        #expect(run.status == 255)
        #expect(run.out == "")
        #expect(run.err.contains("for '--shard'"))
    }

    @Test func anEmptyShardExitsZeroWithANotice() {
        let run = futurerun(["--shard", "2/2", "--each", "echo {}", "only-one-job-and-it-hashes-to-one"])
        let other = futurerun(["--shard", "1/2", "--each", "echo {}", "only-one-job-and-it-hashes-to-one"])
        let empty = [run, other].first { $0.out.isEmpty }
        #expect(empty?.status == 0)
        #expect(empty?.err.contains("0 of 1 jobs; nothing to run here") == true, "\(run.err) \(other.err)")
    }

    @Test(arguments: ["json", "joblog", "junit"])
    func timingsFromAnEarlierRunBalanceTheShards(kind: String) throws {
        let scratch = Scratch()
        let sleeps = ["0.4", "0.3", "0.3", "0.2", "0.2", "0.2", "0.1", "0.1"]
        let report = scratch.file("last.\(kind)")
        let first = futurerun(["-q", "-j8", "--\(kind)", report, "--each", "sleep {}"] + sleeps)
        #expect(first.status == 0)
        var planned: [Double] = []
        for k in 1...2 {
            let run = futurerun(["--dry-run", "--shard", "\(k)/2", "--shard-timings", report, "--each", "sleep {}"] + sleeps)
            #expect(run.status == 0, "\(run.err)")
            planned.append(run.out.split(separator: "\n").compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +))
            #expect(run.err.contains("(expected "), "\(run.err)")
        }
        // 1.8 s in all: each shard within 10 % of the ideal 0.9 s.
        #expect(planned.allSatisfy { abs($0 - 0.9) <= 0.09 }, "\(planned)")
    }

    @Test func resumeSkipsWhatTheJoblogHolds() {
        let scratch = Scratch()
        let log = scratch.file("jobs.log")
        #expect(futurerun(["-q", "--joblog", log, "echo one", ":::", "echo two; exit 1"]).status == 1)
        let resumed = futurerun(["-q", "--resume", "--joblog", log, "echo one", ":::", "echo two; exit 1", ":::", "echo three"])
        #expect(resumed.out == "three\n")
        let again = futurerun([
            "-q", "--resume-failed", "--joblog", log, "echo one", ":::", "echo two; exit 1", ":::", "echo three",
        ])
        #expect(again.out == "two\n")
        let lines = scratch.read("jobs.log")?.split(separator: "\n") ?? []
        #expect(lines.count == 5, "one header, appended to: \(lines)")
    }

    @Test func resumeReadsGnuParallelsJoblog() throws {
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is not installed (.ci/run installs it)")
        let scratch = Scratch()
        let log = scratch.file("gnu.log")
        _ = Command.shell("parallel -k --joblog \(quoted(log)) ::: 'echo one' 'exit 1' >/dev/null 2>&1").run().value
        let resumed = futurerun(["-q", "--resume-failed", "--joblog", log, "echo one", ":::", "echo fixed", ":::", "echo new"])
        #expect(resumed.out == "fixed\nnew\n", "job 2 failed under GNU parallel, job 3 never ran")
        let skipping = futurerun([
            "-q", "--resume", "--joblog", log, "echo one", ":::", "echo fixed", ":::", "echo new", ":::", "echo last",
        ])
        #expect(skipping.out == "last\n", "--resume skips every job the joblog holds, failed ones too")
    }

    @Test func githubGetsAStepSummaryTable() {
        let scratch = Scratch()
        let summary = scratch.file("summary.md")
        let run = futurerun(
            ["--names", "lint,unit", "echo fine", ":::", "echo 'broke | <here>'; exit 2"],
            environment: [("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", summary)])
        #expect(run.status == 1)
        let text = scratch.read("summary.md") ?? ""
        #expect(text.contains("| # | job | status | time |"))
        #expect(text.contains("| 1 | lint | ✅ ok |"))
        #expect(text.contains("| 2 | unit | ❌ exit 2 |"))
        #expect(text.contains("<details><summary>unit failed: its last lines</summary>"))
        #expect(text.contains("broke | <here>"), "\(text)")
    }
}
