import FutureCore
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// The stages of the job stream, each over a source of `:::` commands: no input, no process.
@Suite struct JobStreams {
    private func source(_ commands: [String]) throws -> JobSource {
        var options = Options()
        options.source = .commands(commands.map { Array($0.utf8) })
        return try JobSource(options: options, input: nil)
    }

    private func drain(_ stream: some JobStream) -> [Job] {
        var jobs: [Job] = []
        while let job = stream.next() { jobs.append(job) }
        return jobs
    }

    @Test func namesAreCheckedAsJobsArrive() throws {
        // Streamed input is checked job by job (a list known at once is refused whole, before).
        let jobs = drain(
            NamedJobs(
                ListStream(
                    try drain(source(["@a true", "true"])) + [
                        Job(number: 3, name: "x", header: JobHeader(name: "a"), body: .command(Array("true".utf8))),
                        Job(number: 4, name: "y", header: JobHeader(name: "b", after: ["c"]), body: .command(Array("true".utf8))),
                    ])))
        #expect(
            jobs.map(\.invalidReason) == [
                nil, nil, "@a: another job before it has that name (names are unique)",
                "@b needs 'c', which no earlier job is named (a job waits only for jobs before it)",
            ])
        #expect(jobs[2].header == nil && jobs[3].header?.name == "b", "a refused name stays the first job's")
    }

    @Test func resumeLeavesOutWhatTheJoblogSaysAndKeepsTheNamedOnesEndings() throws {
        let joblog =
            JobLogFormat.header + "1\t:\t0\t0.1\t0\t0\t0\t0\t@a true\n" + "2\t:\t0\t0.1\t0\t0\t1\t0\tfalse\n"
        let commands = ["@a true", "false", "true"]
        let doneLog = ResumeLog(mode: .done, joblog: joblog)
        let done = ResumedJobs(try source(commands)) { doneLog.skip($0.number) }
        #expect(drain(done).map(\.number) == [3])
        #expect(done.takeSettled().map(\.name) == ["a"] && done.takeSettled().isEmpty, "each said once")
        let failedLog = ResumeLog(mode: .failed, joblog: joblog)
        let failed = ResumedJobs(try source(commands)) { failedLog.skip($0.number) }
        #expect(drain(failed).map(\.number) == [2, 3], "--resume-failed runs the failed job again")
    }

    @Test func rerunFailedTakesTheUnionOfJUnitAndJoblogFailures() throws {
        var rerun = RerunList()
        let junit = """
            <testsuites><testsuite name="futurerun shard 1/2">
            <testcase name="a" classname="futurerun" time="0.1">
            <system-out></system-out></testcase>
            <testcase name="b &amp; c" classname="futurerun" time="0.1">
            <failure message="exit 1" type="failure">x</failure></testcase>
            <testcase name="flaky" classname="futurerun" time="0.1">
            <flakyFailure message="exit 1" type="failure"><stackTrace>x</stackTrace></flakyFailure></testcase>
            <testcase name="stopped" classname="futurerun" time="0.1"><error message="stopped" type="stopped"/></testcase>
            <testcase name="never" classname="futurerun" time="0"><skipped message="not started"/></testcase>
            <testcase name="self-closed" time="0"/>
            </testsuite></testsuites>
            """
        let readJUnit = rerun.add(report: junit)
        #expect(readJUnit)
        #expect(rerun.names == ["b & c", "stopped", "never"])
        let joblog =
            JobLogFormat.header + "4\t:\t0\t0.1\t0\t0\t2\t0\tx\n" + "5\t:\t0\t0.1\t0\t0\t0\t9\ty\n"
            + "6\t:\t0\t0.1\t0\t0\t1\t0\tz\n" + "6\t:\t0\t0.1\t0\t0\t0\t0\tz\n"
        let readJoblog = rerun.add(report: joblog)
        #expect(readJoblog)
        #expect(rerun.numbers == [4, 5], "the last line for a number wins")
        let readJSON = rerun.add(report: "{\"number\":1}")
        #expect(!readJSON, "neither format")
        let list = rerun
        let jobs = drain(ResumedJobs(try source(["a", "b & c", "true", "x", "y"])) { list.reruns($0) ? nil : .succeeded })
        #expect(jobs.map(\.number) == [2, 4, 5])
    }

    @Test func aShardKeepsItsShareAndJobsThatWaitForEachOtherTogether() throws {
        let commands = ["@a true", "@b after=a true", "c", "d", "e", "f"]
        var selection = JobSelection()
        selection.shard = Shard(index: 1, count: 2)
        let first = JobPipeline(try source(commands), selection: selection)
        selection.shard = Shard(index: 2, count: 2)
        let second = JobPipeline(try source(commands), selection: selection)
        let (mine, theirs) = (drain(first).map(\.number), drain(second).map(\.number))
        #expect(Set(mine + theirs) == Set(1...6) && Set(mine).isDisjoint(with: theirs))
        #expect(mine.contains(1) == mine.contains(2), "a and b on one shard")
        #expect(first.shardNotice?.hasPrefix("shard 1/2: \(mine.count) of 6 jobs") == true)
    }
}

/// Jobs given as they are.
private final class ListStream: JobStream {
    private let jobs: Locked<[Job]>
    init(_ jobs: [Job]) { self.jobs = Locked(jobs.reversed()) }
    func next() -> Job? { jobs.withLock { $0.popLast() } }
}
