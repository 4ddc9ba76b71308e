import FutureCore
import FutureProcess
import Glibc

/// `--junit FILE`: JUnit XML for CI dashboards, one testcase per job with its time; a failed job
/// gets a `<failure>` with its exit status or signal and the tail of its stderr; the last lines of
/// stdout and stderr go to `system-out`/`system-err`. The file is valid XML after every job (the
/// closing tags are rewritten behind each new testcase), so an interrupted run keeps what completed;
/// the counts are added to `<testsuite>` at the end.
final class JUnitReport: Report {
    private let file: ReportFile
    private var written = 0
    private var tails: [Int: (out: TailKeeper, err: TailKeeper)] = [:]
    private var counts = Counts()
    private static let footer = Array("</testsuite>\n</testsuites>\n".utf8)
    private static let openingLines = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"

    init(path: String) throws(UsageError) {
        file = try ReportFile(path: path, append: false)
        append(Self.header(nil))
    }

    var error: String? { file.error }

    func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        var tail = tails[job.number] ?? (TailKeeper(limit: 200), TailKeeper(limit: 200))
        if isError { tail.err.feed(bytes) } else { tail.out.feed(bytes) }
        tails[job.number] = tail
    }

    func finished(_ outcome: JobOutcome) {
        let tail = tails.removeValue(forKey: outcome.job.number) ?? (TailKeeper(limit: 0), TailKeeper(limit: 0))
        counts.add(outcome)
        append(Self.testcase(outcome, stdout: tail.out.text, stderr: tail.err.text))
    }

    /// The counts on `<testsuite>`.
    struct Counts: Equatable {
        var tests = 0
        var failures = 0
        var skipped = 0
        var time = 0.0

        mutating func add(_ outcome: JobOutcome) {
            tests += 1
            time += outcome.result.wallTime.seconds
            if outcome.status.isFailure { failures += 1 }
            if outcome.status.neverRan || outcome.status == .stopped { skipped += 1 }
        }
    }

    /// A whole report of `cases` (each job's outcome and the last lines of its output), as the
    /// file holds it at the end of the run.
    static func document(_ cases: [(outcome: JobOutcome, stdout: [String], stderr: [String])]) -> String {
        var counts = Counts()
        for item in cases { counts.add(item.outcome) }
        return header(counts) + cases.map { testcase($0.outcome, stdout: $0.stdout, stderr: $0.stderr) }.joined()
            + String(decoding: footer, as: UTF8.self)
    }

    /// The opening lines; with `counts`, the `<testsuite>` carries them (written at the end).
    static func header(_ counts: Counts?) -> String {
        guard let counts else { return openingLines + "<testsuite name=\"futurerun\">\n" }
        return openingLines
            + "<testsuite name=\"futurerun\" tests=\"\(counts.tests)\" failures=\"\(counts.failures)\" errors=\"0\" "
            + "skipped=\"\(counts.skipped)\" time=\"\(String(format3: counts.time))\">\n"
    }

    /// One job's `<testcase>`: its time, a `<failure>` or `<skipped>` that says why, and the last
    /// lines of its output.
    static func testcase(_ outcome: JobOutcome, stdout: [String], stderr: [String]) -> String {
        let time = String(format3: outcome.result.wallTime.seconds)
        var xml = "<testcase name=\(Self.attribute(outcome.job.label)) classname=\"futurerun\" time=\"\(time)\">\n"
        switch outcome.status {
        case .succeeded: break
        case .notStarted: xml += "<skipped message=\"not started\"/>\n"
        case .skipped(let reason): xml += "<skipped message=\(Self.attribute(reason))/>\n"
        case .stopped: xml += "<skipped message=\"stopped by futurerun\"/>\n"
        case .failed(let status):
            xml +=
                "<failure message=\(Self.attribute(StatusLine.describe(status))) type=\"failure\">"
                + Self.text(stderr.suffix(20).joined(separator: "\n")) + "</failure>\n"
        case .unrunnable(let reason):
            xml += "<failure message=\(Self.attribute(reason)) type=\"invalid\"/>\n"
        }
        xml += "<system-out>" + Self.text(stdout.joined(separator: "\n")) + "</system-out>\n"
        xml += "<system-err>" + Self.text(stderr.joined(separator: "\n")) + "</system-err>\n"
        return xml + "</testcase>\n"
    }

    /// Writes `text` in place of the footer, then the footer again.
    private func append(_ text: String) {
        let bytes = Array(text.utf8)
        file.overwrite(bytes + Self.footer, at: written)
        written += bytes.count
    }

    func close() {
        // Put the counts on <testsuite>: read back what was written, rewrite it with them.
        let descriptor = file.stream.descriptor
        var body = [UInt8](repeating: 0, count: written)
        guard file.error == nil, pread(descriptor, &body, written, 0) == written else { return }
        let old = Array(Self.header(nil).utf8)
        file.overwrite(Array(Self.header(counts).utf8) + body[old.count...] + Self.footer, at: 0)
    }

    /// A quoted XML attribute value.
    static func attribute(_ value: String) -> String { "\"" + escape(value, quotes: true) + "\"" }

    static func text(_ value: String) -> String { escape(value, quotes: false) }

    /// XML-escaped, with characters XML 1.0 cannot hold removed.
    static func escape(_ value: String, quotes: Bool) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "\n" where quotes: out += "&#10;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case let s where s.value < 0x20 || s.value == 0xFFFE || s.value == 0xFFFF: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
