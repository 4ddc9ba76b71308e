/// Opens the report files the options ask for, before anything runs.
enum ReportSet {
    /// - Parameter stepSummary: under GitHub Actions, the file of `GITHUB_STEP_SUMMARY`.
    static func open(_ options: Options, stepSummary: String? = nil) throws(UsageError) -> [Report] {
        var reports: [Report] = []
        if let path = options.jobLog { reports.append(try JobLog(path)) }
        if let path = options.json {
            guard path != "-" else {
                throw .invalidValue(option: "--json", value: path, expected: "a file: stdout carries the jobs' output")
            }
            reports.append(try JSONLines(path: path))
        }
        if let path = options.junit { reports.append(try JUnitReport(path: path)) }
        if let path = options.results { reports.append(try ResultsDirectory(path: path)) }
        if let path = options.timeline { reports.append(try Timeline(path: path)) }
        if let path = stepSummary, !path.isEmpty { reports.append(try StepSummary(path: path)) }
        return reports
    }
}
