import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput

extension RunConfiguration {
    /// Whether the jobs, arguments or `--pipe`'s input are read from stdin.
    static func readsStandardInput(_ source: Options.Source) -> Bool {
        switch source {
        case .commandLines(let path), .templateLines(_, let path), .blocks(_, let path): path == nil || path == "-"
        case .commands, .template: false
        }
    }

    /// What to say when the jobs, arguments or `--pipe` input would be typed on the terminal (as
    /// GNU parallel warns): what futurerun waits for, how to end it, and what was maybe forgotten.
    static func terminalNotice(_ source: Options.Source) -> String {
        switch source {
        case .templateLines:
            "reading the template's arguments from the terminal, one per line; end with Ctrl-D "
                + "(or give them after the template, with ::: or with -a FILE)"
        case .blocks:
            "reading --pipe's input from the terminal; end with Ctrl-D (or pipe a file into futurerun)"
        case .commandLines, .commands, .template:
            "reading jobs from the terminal, one per line; end with Ctrl-D "
                + "(or give the commands, ::: between them, or -a FILE)"
        }
    }

    /// `--memfree SIZE` and `--memsuspend SIZE`: no more than there could ever be (`total`).
    static func checkMemorySize(_ reserve: Int, option: String, total: Int) throws(UsageError) {
        // --memsuspend starts a job only while twice SIZE is free.
        let needed = option == "--memsuspend" ? 2 * reserve : reserve
        guard needed > total else { return }
        let total = ByteCountFormat.format(total)
        throw .invalidValue(
            option: option, value: ByteCountFormat.format(reserve),
            expected: needed > reserve
                ? "at most half the memory there is (\(total), the machine's or its cgroup's limit): --memsuspend starts a job only while twice SIZE is free"
                : "at most the memory there is (\(total), the machine's or its cgroup's limit)")
    }
}
