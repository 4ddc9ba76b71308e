import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// What a person sees on a terminal: the screen of a sequential run, on any width (SPEC.md §2
/// "Terminal, CI logs, job control"). Drawn in tmux and read back from the pane.
@Suite(.serialized) struct Terminal {
    init() throws { try #require(TerminalPane.isAvailable, "tmux is not installed (.ci/run installs it)") }

    @Test(arguments: [25, 80])
    func theProgressLineNeverErasesAJobsUnfinishedLine(columns: Int) {
        let pane = TerminalPane(
            columns: columns, rows: 20,
            "\(quoted(futurerunPath)) -q --progress 'printf \"working... \"; sleep 1.2; echo done' ::: 'sleep 0.4'")
        let screen = pane.finished()
        #expect(screen.first == "working... done", "\(screen)")
    }

    @Test(arguments: [25, 80])
    func aStatusLineNeverSticksToOutputWithoutANewline(columns: Int) {
        let pane = TerminalPane(columns: columns, rows: 20, "\(quoted(futurerunPath)) 'printf abc' ::: 'printf def'")
        let screen = pane.finished()
        #expect(screen.count >= 5, "\(screen)")
        #expect(screen[0] == "abc")
        #expect(screen[1].hasPrefix("ok   [1/2] "))
        #expect(screen[2] == "def")
        #expect(screen[3].hasPrefix("ok   [2/2] "))
    }

    @Test func readingJobsFromTheTerminalSaysSoAndCtrlDEndsIt() {
        let pane = TerminalPane(columns: 120, rows: 20, "\(quoted(futurerunPath)) -q; echo \"exit $?\"")
        _ = eventually(10) { pane.screen.contains { $0.contains("reading jobs from the terminal") } }
        #expect(pane.screen.first?.hasPrefix("futurerun: reading jobs from the terminal, one per line; end with Ctrl-D") == true)
        pane.send("echo typed")
        pane.send("Enter")
        pane.send("C-d")
        let screen = pane.finished()
        #expect(screen.contains("typed") && screen.last == "exit 0", "\(screen)")
        // Arguments for a template: the notice says so; a pipe or a file says nothing.
        let each = TerminalPane(
            columns: 120, rows: 20, "\(quoted(futurerunPath)) -q --each 'echo {}' < /dev/null; echo \"exit $?\"")
        #expect(each.finished() == ["exit 0"])
        let args = TerminalPane(columns: 160, rows: 20, "\(quoted(futurerunPath)) -q --each 'echo {}'")
        _ = eventually(10) { args.screen.contains { $0.contains("template's arguments") } }
        #expect(args.screen.first?.contains("reading the template's arguments from the terminal") == true, "\(args.screen)")
        args.send("C-d")
        _ = args.finished()
    }

    @Test func aNarrowTerminalShowsNoStaleProgressAndNoWrappedLines() {
        let jobs = (1...30).map { "sleep 0.12; : job-with-a-rather-long-label-\($0)" }.joined(separator: "\n")
        let scratch = Scratch()
        scratch.write("jobs.txt", jobs + "\n")
        let pane = TerminalPane(
            columns: 25, rows: 50, "\(quoted(futurerunPath)) -j2 --progress < \(quoted(scratch.file("jobs.txt")))")
        let screen = pane.finished()
        // 30 status lines, the summary and the slowest line: each fits on one row of 25.
        #expect(screen.count == 32, "\(screen)")
        #expect(screen.filter { $0.hasPrefix("ok   [") }.count == 30)
        #expect(screen.allSatisfy { $0.count <= 24 }, "\(screen)")
        #expect(!screen.contains { $0.contains(" running") }, "a stale progress line: \(screen)")
        #expect(screen.last?.hasPrefix("slowest: ") == true)
    }
}
