import FutureRunEngine
import FutureRunModel
import Glibc

/// futurerun's two output streams, as the printer thread uses them: job bytes to stdout and
/// stderr, its own lines to stderr, and (on a terminal) a progress line kept at the bottom,
/// cleared before anything else is written and drawn again after.
///
/// It keeps the screen what a sequential run would show: it knows whether the line the cursor
/// is on holds a job's unfinished output (stdout counts when it shares the screen or file with
/// stderr), and then draws no progress line over it and starts its own lines on a fresh one.
///
/// Used by the printer thread only.
package final class Console {
    package let out: StandardStream
    package let err: StandardStream
    package let style: Style
    private let progressEnabled: Bool
    package var showsProgress: Bool { progressEnabled }
    /// Whether stdout's bytes land on the same line as stderr's (one terminal, or one file).
    private let stdoutSharesLine: Bool
    private let stderrIsTerminal: Bool
    private var progressShown = false
    /// The last byte on the shared line was not a newline: a job's line is unfinished.
    private var lineOpen = false
    private(set) var lastWrite = ContinuousClock.now

    package init(out: StandardStream, err: StandardStream, style: Style, progress: Bool) {
        self.out = out
        self.err = err
        self.style = style
        self.progressEnabled = progress
        self.stderrIsTerminal = err.isTerminal
        self.stdoutSharesLine = (out.isTerminal && stderrIsTerminal) || out.isSameFile(as: err)
    }

    /// The terminal's width in columns, when stderr is a terminal (asked each time: it can change).
    package var width: Int? {
        guard stderrIsTerminal else { return nil }
        var size = winsize()
        guard ioctl(err.descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// A job's stdout bytes.
    func jobOutput(_ bytes: [UInt8]) throws(OutputError) {
        guard !bytes.isEmpty else { return }
        if stdoutSharesLine { try clearProgress() }
        try out.write(bytes)
        if stdoutSharesLine { lineOpen = bytes.last != 0x0A }
        lastWrite = .now
    }

    /// A job's stderr bytes.
    func jobError(_ bytes: [UInt8]) throws(OutputError) {
        guard !bytes.isEmpty else { return }
        try clearProgress()
        try err.write(bytes)
        lineOpen = bytes.last != 0x0A
        lastWrite = .now
    }

    /// One line of futurerun's own (a newline is added), on a line of its own.
    package func say(_ line: String) throws(OutputError) {
        try clearProgress()
        try err.write((lineOpen ? "\n" : "") + line + "\n")
        lineOpen = false
        lastWrite = .now
    }

    /// `line` cut to the terminal's width (nothing is cut off a terminal).
    func fitted(_ line: String) -> String {
        guard let width else { return line }
        return Style.truncate(line, toVisible: width - 1)
    }

    /// Draws `text` as the progress line, cut to the width (only when progress is enabled, and
    /// never over a job's unfinished line).
    package func progress(_ text: String) throws(OutputError) {
        guard progressEnabled, !lineOpen else { return }
        try err.write("\r\u{1B}[K" + fitted(text))
        progressShown = true
    }

    func clearProgress() throws(OutputError) {
        guard progressShown else { return }
        progressShown = false
        try err.write("\r\u{1B}[K")
    }
}
