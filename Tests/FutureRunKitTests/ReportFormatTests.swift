import Glibc
import Testing

@testable import FutureCore
@testable import FutureProcess
@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Compares `rendered` with the checked-in `Expected/NAME` (set `FUTURERUN_RECORD=1` to write it
/// anew, then read the diff).
private func compare(_ rendered: String, with name: String, filePath: String = #filePath) throws {
    let path = String(filePath.split(separator: "/Tests/").first!) + "/Tests/FutureRunKitTests/Expected/" + name
    if getenv("FUTURERUN_RECORD") != nil {
        let file = fopen(path, "w")
        fputs(rendered, file)
        fclose(file)
    }
    let expected = try #require(TextFile.read(path), "\(name) is missing: run with FUTURERUN_RECORD=1")
    #expect(rendered == expected, "\(name) differs")
}

/// The report formatters are pure: outcomes in, bytes out, compared with the files in
/// `Expected/` (set `FUTURERUN_RECORD=1` to write them anew, then read the diff).
@Suite struct ReportFormats {
    /// Five jobs that ended every way a job can, with fixed times and output.
    static let outcomes: [(outcome: JobOutcome, stdout: [String], stderr: [String])] = {
        func outcome(
            _ number: Int, _ name: String, _ status: JobStatus, termination: TerminationStatus, exit: Int32?, signal: Int32?,
            wall: Duration, out: String, err: String, attempts: Int = 1
        ) -> (JobOutcome, [String], [String]) {
            let stdout = CapturedOutput(memoryLimit: 1 << 16, spillDirectory: "/tmp")
            let stderr = CapturedOutput(memoryLimit: 1 << 16, spillDirectory: "/tmp")
            stdout.append(Array(out.utf8))
            stderr.append(Array(err.utf8))
            stdout.finish()
            stderr.finish()
            let result = CommandResult(
                status: termination, exitCode: exit, signal: signal, startTime: 1_796_000_000.25 + Double(number), wallTime: wall,
                userTime: .milliseconds(12), systemTime: .milliseconds(3), maxResidentBytes: 4_194_304, stdout: stdout,
                stderr: stderr, processID: 1000 + Int32(number))
            let job = Job(number: number, name: name, body: .command(Array(name.utf8)))
            let lines = { (text: String) in text.split(separator: "\n").map(String.init) }
            return (
                JobOutcome(job: job, status: status, result: result, attempts: attempts, commandLine: Array(name.utf8)),
                lines(out), lines(err)
            )
        }
        return [
            outcome(
                1, "make lint", .succeeded, termination: .exited(0), exit: 0, signal: nil, wall: .milliseconds(1234),
                out: "linted\n", err: ""),
            outcome(
                2, "make test <all> & \"more\"", .failed(.exited(2)), termination: .exited(2), exit: 2, signal: nil,
                wall: .milliseconds(3500), out: "ran 3\n", err: "test b failed\nexpected 1\n", attempts: 2),
            outcome(
                3, "sleep 60", .failed(.timedOut), termination: .timedOut, exit: nil, signal: 15, wall: .seconds(5), out: "",
                err: ""),
            outcome(
                4, "kill -9 $$", .failed(.signaled(9)), termination: .signaled(9), exit: nil, signal: 9, wall: .milliseconds(2),
                out: "", err: ""),
            outcome(5, "make docs", .notStarted, termination: .cancelled, exit: nil, signal: nil, wall: .zero, out: "", err: ""),
        ]
    }()

    @Test func joblog() throws {
        try compare(Self.outcomes.compactMap { JobLog.line($0.outcome) }.joined(), with: "joblog.tsv")
    }

    @Test func jsonLines() throws {
        try compare(Self.outcomes.map { JSONLinesFormat.object($0.outcome) + "\n" }.joined(), with: "jobs.jsonl")
    }

    @Test func aRequeuedJobSaysHowOftenInJSONAndItsStatusLine() {
        var outcome = Self.outcomes[0].outcome
        #expect(!JSONLinesFormat.object(outcome).contains("requeued"), "only when it was")
        outcome.requeued = 2
        #expect(JSONLinesFormat.object(outcome).hasSuffix(",\"requeued\":2}"))
        #expect(StatusLine.format(outcome, total: 5, style: Style(colors: false), width: 200).contains("requeued 2 times"))
    }

    @Test func admissionAtWorkIsInJSONTheStatusLineAndTheSummary() {
        var outcome = Self.outcomes[1].outcome
        let style = Style(colors: false)
        #expect(!JSONLinesFormat.object(outcome).contains("waited"), "only when it did")
        outcome.requeued = 1
        outcome.admission = AdmissionTimes(waited: .milliseconds(1250), waitedFor: "memory", suspended: .milliseconds(500))
        #expect(
            JSONLinesFormat.object(outcome).hasSuffix(
                ",\"requeued\":1,\"waited\":1.250,\"waited_for\":\"memory\",\"suspended\":0.500}"))
        #expect(
            StatusLine.format(outcome, total: 5, style: style).hasSuffix(
                "after 2 attempts  requeued once  waited 1.25s for memory  suspended 500ms"))
        var tally = Tally()
        tally.add(outcome)
        outcome.requeued = 0
        outcome.admission = AdmissionTimes(waited: .seconds(3), waitedFor: "memory", suspended: .milliseconds(1000))
        tally.add(outcome)
        outcome.admission = AdmissionTimes(waited: .seconds(2), waitedFor: "load")
        tally.add(outcome)
        #expect(
            tally.summary(wall: .seconds(9), style: style).last
                == "admission: waited 2.00s for load, waited 4.25s for memory, 1 job requeued, 2 suspended for 1.50s")
        var plain = Tally()
        plain.add(Self.outcomes[0].outcome)
        #expect(!plain.summary(wall: .seconds(1), style: style).contains { $0.hasPrefix("admission") }, "only when it acted")
    }

    @Test func junit() throws {
        try compare(JUnitFormat.document(Self.outcomes), with: "junit.xml")
    }

    @Test func aStoppedJobIsAnErrorOfTheShardsSuiteNotASkip() {
        var stopped = Self.outcomes[2]
        let cut = stopped.outcome
        stopped.outcome = JobOutcome(
            job: cut.job, status: .stopped, result: cut.result, attempts: 1, commandLine: cut.commandLine)
        let xml = JUnitFormat.document([Self.outcomes[0], stopped, Self.outcomes[4]], suite: "futurerun shard 2/4")
        #expect(xml.contains(#"<testsuite name="futurerun shard 2/4" tests="3" failures="0" errors="1" skipped="1" "#), "\(xml)")
        #expect(xml.contains(#"<error message="stopped by futurerun" type="stopped"/>"#))
        #expect(xml.ranges(of: "<skipped ").count == 1, "only the job that never started")
    }

    @Test func statusLines() throws {
        let style = Style(colors: false)
        try compare(
            Self.outcomes.map { StatusLine.format($0.outcome, total: 5, style: style) + "\n" }.joined(), with: "status.txt")
    }
}

@Suite struct TimelineDrawings {
    static let bars: [TimelineDrawing.Bar] = [
        .init(
            number: 1, label: "gen", command: "./codegen", outcome: .ok, detail: "ok", slot: 1, start: 100, wall: 0.2, cpu: 0.1,
            maxResidentBytes: 2 << 20, attempt: 1, attempts: 1),
        .init(
            number: 2, label: "lint <x>", command: "make lint", outcome: .failed, detail: "failed: exit 1", slot: 2, start: 100,
            wall: 0.05,
            cpu: 0.04, maxResidentBytes: 1 << 20, attempt: 1, attempts: 1),
        .init(
            number: 3, label: "build", command: "make", outcome: .failed, detail: "failed: exit 2", slot: 1, start: 100.2,
            wall: 0.1,
            cpu: 0.1,
            maxResidentBytes: 4 << 20, attempt: 1, attempts: 2),
        .init(
            number: 3, label: "build", command: "make", outcome: .ok, detail: "ok", slot: 2, start: 100.3, wall: 0.3, cpu: 0.25,
            maxResidentBytes: 4 << 20, attempt: 2, attempts: 2),
        .init(
            number: 4, label: "slow", command: "sleep 0.5", outcome: .timedOut, detail: "timed out", slot: 1, start: 100.3,
            wall: 0.2,
            cpu: 0, maxResidentBytes: 1 << 20, attempt: 1, attempts: 1),
    ]

    @Test func theCriticalPathRunsBackThroughWhatGatedEachStart() {
        let headers = [1: JobHeader(name: "gen"), 3: JobHeader(name: "build", after: ["gen"])]
        // build's second attempt ends last; its first attempt started when gen ended.
        let path = Set(TimelineDrawing.criticalPath(Self.bars, headers: headers))
        #expect(path.contains(3) && path.contains(0), "\(path)")
        #expect(!path.contains(1) && !path.contains(4))
        #expect(TimelineDrawing.criticalPath(Self.bars, headers: [:]).isEmpty, "no graph, no critical path")
    }

    @Test func ticksAreRoundStepsOfTheRunsLength() {
        let short = TimelineDrawing.ticks(span: 0.6)
        #expect(short.count == 7 && short.first == 0 && abs(short.last! - 0.6) < 1e-9, "\(short)")
        #expect(TimelineDrawing.ticks(span: 95).count <= 11)
        #expect(TimelineDrawing.ticks(span: 3600).count <= 11)
    }

    @Test func theDrawingIsTheCheckedInOne() throws {
        var bars = Self.bars
        for index in TimelineDrawing.criticalPath(
            bars, headers: [1: JobHeader(name: "gen"), 3: JobHeader(name: "build", after: ["gen"])])
        {
            bars[index].critical = true
        }
        let svg = TimelineDrawing.svg(
            bars: bars, skipped: [(5, "pkg", "needs lint, which failed (exit 1)")], caption: "5 jobs in 600ms")
        let path = String(#filePath.split(separator: "/Tests/").first!) + "/Tests/FutureRunKitTests/Expected/timeline.svg"
        if getenv("FUTURERUN_RECORD") != nil {
            let file = fopen(path, "w")
            fputs(svg, file)
            fclose(file)
        }
        #expect(svg == TextFile.read(path), "timeline.svg differs (FUTURERUN_RECORD=1 writes it anew)")
    }
}
