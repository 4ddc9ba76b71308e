import FutureCore
import FutureProcess

/// JUnit XML, written by `--junit` and read back by `--shard-timings`: one `<testsuite>` named by
/// the shard (`futurerun shard 2/4`, else `futurerun`), one `<testcase>` per job with its label and
/// time; a failed job gets a `<failure>` with its exit status or signal and the tail of its stderr,
/// a job futurerun stopped an `<error type="stopped">` (an interrupted run is not green), one that
/// never ran a `<skipped>`; the last lines of stdout and stderr go to `system-out`/`system-err`.
/// Attempts `--retries` tried again are Surefire's `<flakyFailure>` (the job passed in the end) or
/// `<rerunFailure>`; a job `--cache` replayed has `group="cached"`.
package enum JUnitFormat {
    package static let footer = Array("</testsuite>\n</testsuites>\n".utf8)
    static let openingLines = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"

    /// The counts on `<testsuite>`.
    package struct Counts: Equatable {
        var tests = 0
        package var failures = 0
        /// Jobs futurerun stopped.
        package var errors = 0
        package var skipped = 0
        package var time = 0.0

        package mutating func add(_ outcome: JobOutcome) {
            tests += 1
            time += outcome.result.wallTime.seconds
            if outcome.status.isFailure { failures += 1 }
            if outcome.status == .stopped { errors += 1 } else if outcome.status.neverRan { skipped += 1 }
        }

        package init() {}
    }

    /// A whole report of `cases` (each job's outcome and the last lines of its output), as the
    /// file holds it at the end of the run.
    static func document(
        _ cases: [(outcome: JobOutcome, stdout: [String], stderr: [String])], suite: String = "futurerun"
    ) -> String {
        var counts = Counts()
        for item in cases { counts.add(item.outcome) }
        return header(counts, suite: suite) + cases.map { testcase($0.outcome, stdout: $0.stdout, stderr: $0.stderr) }.joined()
            + String(decoding: footer, as: UTF8.self)
    }

    /// The opening lines of suite `suite`; with `counts`, the `<testsuite>` carries them (written at
    /// the end).
    package static func header(_ counts: Counts?, suite: String) -> String {
        guard let counts else { return openingLines + "<testsuite name=\(quoted(suite))>\n" }
        return openingLines
            + "<testsuite name=\(quoted(suite)) tests=\"\(counts.tests)\" failures=\"\(counts.failures)\" "
            + "errors=\"\(counts.errors)\" "
            + "skipped=\"\(counts.skipped)\" time=\"\(String(format3: counts.time))\">\n"
    }

    /// One job's `<testcase>`: its time, a `<failure>` or `<skipped>` that says why, and the last
    /// lines of its output.
    package static func testcase(_ outcome: JobOutcome, stdout: [String], stderr: [String]) -> String {
        let time = String(format3: outcome.result.wallTime.seconds)
        // `group` is Surefire's attribute; a job replayed from the cache (`--cache`) is in "cached".
        let group = outcome.isCached ? " group=\"cached\"" : ""
        var xml = "<testcase name=\(Self.quoted(outcome.job.label)) classname=\"futurerun\"\(group) time=\"\(time)\">\n"
        switch outcome.status {
        case .succeeded: xml += earlierAttempts(outcome, as: "flakyFailure")
        case .notStarted: xml += "<skipped message=\"not started\"/>\n"
        case .skipped(let reason): xml += "<skipped message=\(Self.quoted(StatusText.describe(reason)))/>\n"
        case .stopped: xml += "<error message=\"stopped by futurerun\" type=\"stopped\"/>\n"
        case .failed(let status):
            xml +=
                "<failure message=\(Self.quoted(StatusText.describe(status))) type=\"failure\">"
                + Self.text(stderr.suffix(20).joined(separator: "\n")) + "</failure>\n"
                + earlierAttempts(outcome, as: "rerunFailure")
        case .unrunnable(let reason):
            xml += "<failure message=\(Self.quoted(reason)) type=\"invalid\"/>\n"
        }
        xml += "<system-out>" + Self.text(stdout.joined(separator: "\n")) + "</system-out>\n"
        xml += "<system-err>" + Self.text(stderr.joined(separator: "\n")) + "</system-err>\n"
        return xml + "</testcase>\n"
    }

    /// The attempts `--retries` tried again before the last, as Maven Surefire writes reruns: a
    /// job that passed in the end gets a `<flakyFailure>` for each, one that failed for good a
    /// `<rerunFailure>` (their output is the last attempt's alone: none of theirs is kept).
    private static func earlierAttempts(_ outcome: JobOutcome, as element: String) -> String {
        let tries = outcome.earlierAttempts.filter { !$0.requeued }
        return tries.enumerated().map { index, attempt in
            let what = "attempt \(index + 1) of \(outcome.attempts): \(StatusText.describe(attempt.status))"
            return "<\(element) message=\(Self.quoted(StatusText.describe(attempt.status))) type=\"failure\">"
                + "<stackTrace>\(Self.text(what))</stackTrace></\(element)>\n"
        }.joined()
    }

    /// A quoted XML attribute value.
    package static func quoted(_ value: String) -> String { "\"" + escape(value, quotes: true) + "\"" }

    package static func text(_ value: String) -> String { escape(value, quotes: false) }

    /// XML-escaped, with characters XML 1.0 cannot hold removed.
    package static func escape(_ value: String, quotes: Bool) -> String {
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

    /// The `name` and `time` of each `<testcase>` of `text` (futurerun's or another tool's JUnit),
    /// and how many testcases had no name or no finite, non-negative time (``Durations``).
    package static func decode(_ text: String) -> (records: [(name: String, seconds: Double)], skipped: Int) {
        var records: [(name: String, seconds: Double)] = []
        var skipped = 0
        for piece in text.split(separator: "<testcase").dropFirst() where piece.first?.isWhitespace == true {
            let tag = piece.prefix { $0 != ">" }
            guard let name = attribute("name", in: tag), let time = attribute("time", in: tag).flatMap(Double.init),
                let seconds = Durations.seconds(time)
            else {
                skipped += 1
                continue
            }
            records.append((name, seconds))
        }
        return (records, skipped)
    }

    /// An attribute of an XML start tag, unescaped; `nil` if it is not there.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard
            let start = tag.firstRange(of: " \(name)=\"") ?? tag.firstRange(of: "\t\(name)=\"")
                ?? tag.firstRange(of: "\n\(name)=\""),
            let end = tag[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(tag[start.upperBound..<end]).replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"").replacing("&apos;", with: "'").replacing("&#10;", with: "\n")
            .replacing("&amp;", with: "&")
    }
}
