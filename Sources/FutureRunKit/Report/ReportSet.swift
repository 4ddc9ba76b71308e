/// Opens the report files the options ask for, before anything runs.
enum ReportSet {
    static func open(_ options: Options) throws(UsageError) -> [Report] {
        []
    }
}
