import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Shards, timings and resume decisions, as values.
@Suite struct Shards {
    @Test func theHashIsFNV1aOfTheNamesBytes() {
        // The published FNV-1a 64-bit values: "" and "a".
        #expect(Shard.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(Shard.hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(Shard.hash("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test func kOverNIsOneBasedAndChecked() {
        #expect(Shard.parse("2/5") == Shard(index: 2, count: 5))
        for bad in ["0/3", "4/3", "1/0", "a/b", "2", "1/2/3", "-1/2", ""] { #expect(Shard.parse(bad) == nil, "\(bad)") }
    }

    @Test(arguments: [
        (["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"], 2, 3),
        (["CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "4"], 1, 4),
        (["BUILDKITE_PARALLEL_JOB": "3", "BUILDKITE_PARALLEL_JOB_COUNT": "4"], 4, 4),
        (["BITBUCKET_PARALLEL_STEP": "1", "BITBUCKET_PARALLEL_STEP_COUNT": "2"], 2, 2),
        (["SLURM_PROCID": "5", "SLURM_NTASKS": "8"], 6, 8),
        (["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_PROCID": "0"], 4, 4),
        (
            [
                "SLURM_ARRAY_TASK_ID": "30", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_STEP": "10",
                "SLURM_ARRAY_TASK_COUNT": "4",
            ], 3, 4
        ),
        (["BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "2"], 1, 2),
    ])
    func autoReadsEachCIsVariablesWithItsBase(environment: [String: String], index: Int, count: Int) throws {
        #expect(try Shard.fromEnvironment(environment).get() == Shard(index: index, count: count))
    }

    @Test(arguments: ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"])
    func aSystemThatPassesNoCountTakesItFromAutoN(variable: String) throws {
        #expect(try Shard.fromEnvironment([variable: "2"], count: 5).get() == Shard(index: 3, count: 5))
        #expect(throws: UsageError.self, "without auto/N") { try Shard.fromEnvironment([variable: "2"]).get() }
        #expect(throws: UsageError.self, "past N") { try Shard.fromEnvironment([variable: "5"], count: 5).get() }
        #expect(throws: UsageError.self, "a count that disagrees") {
            try Shard.fromEnvironment(["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"], count: 4).get()
        }
    }

    @Test func autoWithNothingSetIsNoShardAndNonsenseIsAnError() {
        #expect((try? Shard.fromEnvironment([:]).get()) == .some(nil))
        #expect(throws: UsageError.self) { try Shard.fromEnvironment(["CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "3"]).get() }
    }

    @Test func timingsGoLongestFirstOntoTheLeastLoadedShard() {
        let groups = [0.4, 0.3, 0.3, 0.2, 0.2, 0.2, 0.1, 0.1].enumerated().map {
            ShardGroup(key: "j\($0.offset)", expected: $0.element)
        }
        let plan = ShardPlan.assign(groups, shards: 2, balanced: true)
        #expect(plan.shards.count == 8)
        #expect(abs(plan.expected[1]! - 0.9) < 1e-9 && abs(plan.expected[2]! - 0.9) < 1e-9, "\(plan.expected)")
        let again = ShardPlan.assign(groups, shards: 2, balanced: true)
        #expect(again.shards == plan.shards, "every node computes the same plan")
    }

    @Test func timingsAreReadFromEachReportKind() throws {
        let joblog =
            "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n1\t:\t1.000\t     2.500\t0\t0\t0\t0\tmake test\n"
        #expect(ShardTimings.parse(joblog)?.seconds(name: "x", command: "make test") == 2.5)
        #expect(
            ShardTimings.parse(joblog + joblog)?.seconds(name: "x", command: "make test") == 2.5, "concatenated shard joblogs")
        let json = #"{"number":1,"name":"unit \"a\"","command":"make unit","status":"ok","wall":1.250}"# + "\n"
        #expect(ShardTimings.parse(json)?.seconds(name: #"unit "a""#, command: "") == 1.25)
        #expect(ShardTimings.parse(json)?.seconds(name: "", command: "make unit") == 1.25)
        let junit =
            #"<?xml version="1.0"?><testsuites><testsuite><testcase name="lint &amp; more" classname="futurerun" time="0.750">"#
        #expect(ShardTimings.parse(junit)?.seconds(name: "lint & more", command: "") == 0.75)
        #expect(ShardTimings.parse("hello") == nil)
    }

    @Test func resumeSkipsWhatTheJoblogHoldsAndResumeFailedRerunsFailures() {
        let log =
            "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"
            + "1\t:\t0\t0\t0\t0\t0\t0\ta\n2\t:\t0\t0\t0\t0\t1\t0\tb\n3\t:\t0\t0\t0\t0\t0\t9\tc\n"
        let done = ResumeLog(mode: .done, joblog: log)
        #expect(done.skip(1) == .succeeded)
        #expect(done.skip(2) == .failed(.exited(1)))
        #expect(done.skip(3) == nil, "a job a signal ended is not done: it runs again")
        #expect(done.skip(4) == nil)
        let failed = ResumeLog(mode: .failed, joblog: log)
        #expect(failed.skip(1) == .succeeded)
        #expect(failed.skip(2) == nil, "a failed job runs again")
        #expect(failed.skip(3) == nil, "a signalled job runs again")
        #expect(failed.skip(4) == nil)
    }
}
