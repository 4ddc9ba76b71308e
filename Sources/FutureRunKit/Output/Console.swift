/// futurerun's two output streams, as the printer thread uses them: job bytes to stdout and
/// stderr, its own lines to stderr, and (on a terminal) a progress line kept at the bottom,
/// cleared before anything else is written and drawn again after.
///
/// Used by the printer thread only.
final class Console {
    let out: StandardStream
    let err: StandardStream
    let style: Style
    private let progressEnabled: Bool
    var showsProgress: Bool { progressEnabled }
    private let stdoutIsTerminal: Bool
    private var progressShown = false
    private(set) var lastWrite = ContinuousClock.now

    init(out: StandardStream, err: StandardStream, style: Style, progress: Bool) {
        self.out = out
        self.err = err
        self.style = style
        self.progressEnabled = progress
        self.stdoutIsTerminal = out.isTerminal
    }

    /// A job's stdout bytes.
    func jobOutput(_ bytes: [UInt8]) throws(OutputError) {
        if stdoutIsTerminal { try clearProgress() }
        try out.write(bytes)
        lastWrite = .now
    }

    /// A job's stderr bytes.
    func jobError(_ bytes: [UInt8]) throws(OutputError) {
        try clearProgress()
        try err.write(bytes)
        lastWrite = .now
    }

    /// One line of futurerun's own (a newline is added).
    func say(_ line: String) throws(OutputError) {
        try clearProgress()
        try err.write(line + "\n")
        lastWrite = .now
    }

    /// Draws `text` as the progress line (only when progress is enabled).
    func progress(_ text: String) throws(OutputError) {
        guard progressEnabled else { return }
        try err.write("\r\u{1B}[K" + text)
        progressShown = true
    }

    func clearProgress() throws(OutputError) {
        guard progressShown else { return }
        progressShown = false
        try err.write("\r\u{1B}[K")
    }
}
