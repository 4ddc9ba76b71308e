/// GNU parallel's `-j FILE`: the width read from FILE at the start and again as each job ends, so
/// that writing the file widens or narrows a run that goes on. FILE holds what `-j` takes (`4`,
/// `0`, `50%`); a file that cannot be read, or holds something else, leaves the width as it was.
struct JobsFile: Sendable {
    let path: String
    let cpus: Int
    /// The limits that lower any width (descriptors, processes).
    let cap: @Sendable (Int) -> Int

    /// What `text` asks for, if it is a `-j` value.
    static func jobs(_ text: String) -> Options.Jobs? {
        try? OptionValue.jobsValue(text.filter { !$0.isWhitespace }, option: "--jobs")
    }

    /// The width the file asks for now, within the limits. Blocks on the file system.
    func width() -> Int? {
        TextFile.read(path).flatMap(Self.jobs).map { cap($0.width(cpus: cpus)) }
    }
}
