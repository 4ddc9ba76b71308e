import Glibc
import Testing

@testable import FutureCore
@testable import FutureRunKit

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

    private func compare(_ rendered: String, with name: String) throws {
        let path = String(#filePath.split(separator: "/Tests/").first!) + "/Tests/FutureRunKitTests/Expected/" + name
        if getenv("FUTURERUN_RECORD") != nil {
            let file = fopen(path, "w")
            fputs(rendered, file)
            fclose(file)
        }
        let expected = try #require(TextFile.read(path), "\(name) is missing: run with FUTURERUN_RECORD=1")
        #expect(rendered == expected, "\(name) differs")
    }

    @Test func joblog() throws {
        try compare(Self.outcomes.compactMap { JobLog.line($0.outcome) }.joined(), with: "joblog.tsv")
    }

    @Test func jsonLines() throws {
        try compare(Self.outcomes.map { JSONLines.object($0.outcome) + "\n" }.joined(), with: "jobs.jsonl")
    }

    @Test func junit() throws {
        try compare(JUnitReport.document(Self.outcomes), with: "junit.xml")
    }

    @Test func statusLines() throws {
        let style = Style(colors: false)
        try compare(
            Self.outcomes.map { StatusLine.format($0.outcome, total: 5, style: style) + "\n" }.joined(), with: "status.txt")
    }
}
