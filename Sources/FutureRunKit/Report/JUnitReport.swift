import FutureCore
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
    private var counts = (tests: 0, failures: 0, skipped: 0, time: 0.0)
    private static let footer = Array("</testsuite>\n</testsuites>\n".utf8)
    private static let header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"futurerun\">\n"

    init(path: String) throws(UsageError) {
        file = try ReportFile(path: path, append: false)
        append(Self.header)
    }

    var error: String? { file.error }

    func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        var tail = tails[job.number] ?? (TailKeeper(limit: 200), TailKeeper(limit: 200))
        if isError { tail.err.feed(bytes) } else { tail.out.feed(bytes) }
        tails[job.number] = tail
    }

    func finished(_ outcome: JobOutcome) {
        let tail = tails.removeValue(forKey: outcome.job.number) ?? (TailKeeper(limit: 0), TailKeeper(limit: 0))
        let time = String(format3: outcome.result.wallTime.seconds)
        var xml = "<testcase name=\(Self.attribute(outcome.job.label)) classname=\"futurerun\" time=\"\(time)\">\n"
        switch outcome.status {
        case .succeeded: break
        case .notStarted: xml += "<skipped message=\"not started\"/>\n"
        case .stopped: xml += "<skipped message=\"stopped by futurerun\"/>\n"
        case .failed(let status):
            xml +=
                "<failure message=\(Self.attribute(StatusLine.describe(status))) type=\"failure\">"
                + Self.text(tail.err.text.suffix(20).joined(separator: "\n")) + "</failure>\n"
        case .invalid(let reason):
            xml += "<failure message=\(Self.attribute(reason)) type=\"invalid\"/>\n"
        }
        xml += "<system-out>" + Self.text(tail.out.text.joined(separator: "\n")) + "</system-out>\n"
        xml += "<system-err>" + Self.text(tail.err.text.joined(separator: "\n")) + "</system-err>\n"
        xml += "</testcase>\n"
        counts.tests += 1
        counts.time += outcome.result.wallTime.seconds
        if outcome.status.isFailure { counts.failures += 1 }
        if outcome.status == .notStarted || outcome.status == .stopped { counts.skipped += 1 }
        append(xml)
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
        let old = Array(Self.header.utf8)
        let new = Array(
            Self.header.replacingAll(
                "<testsuite name=\"futurerun\">",
                with:
                    "<testsuite name=\"futurerun\" tests=\"\(counts.tests)\" failures=\"\(counts.failures)\" errors=\"0\" skipped=\"\(counts.skipped)\" time=\"\(String(format3: counts.time))\">"
            ).utf8)
        file.overwrite(new + body[old.count...] + Self.footer, at: 0)
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
