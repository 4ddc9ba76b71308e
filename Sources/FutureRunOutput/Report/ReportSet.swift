import FutureRunEngine
import FutureRunModel

/// Opens the report files the options ask for, before anything runs.
package enum ReportSet {
    /// - Parameters:
    ///   - stepSummary: the file of `GITHUB_STEP_SUMMARY`, if set.
    ///   - suite: what JUnit calls the run (``JUnitFormat``).
    package static func open(
        _ options: Options, stepSummary: String? = nil, suite: String = "futurerun"
    ) throws(UsageError)
        -> [Report]
    {
        try refuseSharedFiles(options, stepSummary: stepSummary)
        var reports: [Report] = []
        if let target = options.jobLog { reports.append(try JobLog(target)) }
        if let path = options.json {
            guard path != "-" else {
                throw .invalidValue(option: "--json", value: path, expected: "a file: stdout carries the jobs' output")
            }
            reports.append(try JSONLines(path: path))
        }
        if let path = options.junit { reports.append(try JUnitReport(path: path, suite: suite)) }
        if let path = options.results {
            reports.append(options.grammar == .gnu ? try GNUResults(path: path) : try ResultsDirectory(path: path))
        }
        if options.files { reports.append(OutputFiles()) }
        if let path = options.timeline { reports.append(try Timeline(path: path)) }
        if let path = stepSummary, !path.isEmpty { reports.append(try StepSummary(path: path)) }
        return reports
    }

    /// Two reports on one file would overwrite each other: refused before any is opened. One file
    /// is one path, or one existing file by two paths (a link, `./x` and `x`).
    private static func refuseSharedFiles(_ options: Options, stepSummary: String?) throws(UsageError) {
        let named: [(option: String, path: String?)] = [
            ("--joblog", options.jobLog?.path), ("--json", options.json),
            ("--junit", options.junit), ("--results", options.results), ("--timeline", options.timeline),
            ("GITHUB_STEP_SUMMARY", stepSummary.flatMap { $0.isEmpty ? nil : $0 }),
        ]
        let reports = named.compactMap { entry in entry.path.map { (entry.option, $0, FileIdentity($0)) } }
        for (index, first) in reports.enumerated() {
            for second in reports[(index + 1)...]
            where FileIdentity.normalized(first.1) == FileIdentity.normalized(second.1) || (first.2 != nil && first.2 == second.2)
            {
                throw .sharedReportFile(first: first.0, second: second.0, path: second.1)
            }
        }
    }
}
