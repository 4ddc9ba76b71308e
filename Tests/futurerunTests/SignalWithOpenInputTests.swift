import Glibc
import TestSupport
import Testing

/// A stop signal ends the run promptly whatever reading input or `--delay` is doing: a blocked read
/// or `open` is abandoned and the summary says input was cut. (The wall-time bounds only guard
/// against the hang these tests are about; the writers hold their input open for 30 s.)
@Suite struct SignalsWhileInputIsOpen {
    @Test(arguments: [("TERM", Int32(143)), ("INT", Int32(130))])
    func aSignalEndsARunWhoseInputStaysOpen(signal: String, status: Int32) {
        let scratch = Scratch()
        let fifo = quoted(scratch.file("jobs"))
        let run = futurerun(
            ["-a", "-"],
            shellPrefix: "mkfifo \(fifo); { echo 'echo first'; sleep 30; } > \(fifo) & ( sleep 0.5; kill -\(signal) $$ ) & ",
            shellSuffix: " < \(fifo)")
        #expect(run.status == status)
        #expect(run.out == "first\n")
        #expect(run.err.contains("input cut by SIG\(signal): lines not read yet are not run"), "\(run.err)")
        #expect(run.wall < .seconds(10))
    }

    @Test func aSignalEndsARunWaitingToOpenAFifo() {
        let scratch = Scratch()
        let fifo = quoted(scratch.file("jobs"))
        // No writer ever comes: open() blocks before anything runs.
        let run = futurerun(["-a", scratch.file("jobs")], shellPrefix: "mkfifo \(fifo); ( sleep 0.5; kill -TERM $$ ) & ")
        #expect(run.status == 143)
        #expect(run.out == "")
        #expect(run.wall < .seconds(10))
    }

    @Test func aSignalDoesNotWaitOutTheDelay() {
        let run = futurerun(["--delay", "30s", "echo a", ":::", "echo b"], shellPrefix: "( sleep 0.5; kill -TERM $$ ) & ")
        #expect(run.status == 143)
        #expect(run.out == "a\n")
        #expect(run.wall < .seconds(10))
    }
}
