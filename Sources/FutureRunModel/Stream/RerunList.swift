/// `--rerun-failed FILE…`: the jobs that failed or did not finish in earlier reports, read from
/// `--junit` (a testcase with `<failure>`, `<error>` or `<skipped>`, known by its name: a job's
/// label) or `--joblog` (Exitval or Signal not 0, known by its Seq number). Several reports give
/// the union (the shards of one run). Every other job is left out, as having succeeded then.
package struct RerunList: Sendable, Equatable {
    package private(set) var names: Set<String> = []
    package private(set) var numbers: Set<Int> = []

    package init() {}

    /// How many jobs the reports name.
    package var count: Int { names.count + numbers.count }

    /// Adds the failures of a report's `text`; `false` if it is neither a JUnit report nor a joblog.
    package mutating func add(report text: String) -> Bool {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix("<") {
            names.formUnion(Self.junitFailures(text))
        } else if trimmed.hasPrefix("Seq\t") {
            var last: [Int: Bool] = [:]
            for record in JobLogFormat.decode(text).records { last[record.number] = record.succeeded }
            numbers.formUnion(last.filter { !$0.value }.keys)
        } else {
            return false
        }
        return true
    }

    /// Whether `job` runs again.
    package func reruns(_ job: Job) -> Bool {
        numbers.contains(job.number) || names.contains(job.label) || names.contains(job.name)
    }

    /// The names of the testcases of a JUnit report that did not pass: each `<testcase>` holding a
    /// `<failure>`, `<error>` or `<skipped>` (a flaky one's `<flakyFailure>` is a pass).
    static func junitFailures(_ text: String) -> [String] {
        var failed: [String] = []
        for piece in text.split(separator: "<testcase").dropFirst() where piece.first?.isWhitespace == true {
            let tag = piece.prefix { $0 != ">" }
            guard !tag.hasSuffix("/"), let name = JUnitFormat.attribute("name", in: tag) else { continue }
            let body = piece.firstRange(of: "</testcase>").map { piece[..<$0.lowerBound] } ?? piece
            if ["<failure", "<error", "<skipped"].contains(where: { body.contains($0) }) { failed.append(name) }
        }
        return failed
    }
}
