import Dispatch
import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel

/// The default output: each job's block whole and in input order. The oldest unfinished job
/// streams live (its bytes are written as they arrive); later jobs are held by the engine (memory,
/// then a spill file) and replayed when their turn comes.
///
/// Runs on the main thread: all blocking writes happen here, never on the engine's thread.
package final class OrderedPrinter {
    private let scheduler: Scheduler
    private let reporter: JobReporter
    /// Whether the oldest job may stream live (not with retries, CI groups or --quiet-success,
    /// which must know how a job ended before printing it).
    private let streamsLive: Bool
    private let tag: Bool
    private let wakeUp = DispatchSemaphore(value: 0)

    package init(scheduler: Scheduler, reporter: JobReporter, streamsLive: Bool, tag: Bool) {
        self.scheduler = scheduler
        self.reporter = reporter
        self.streamsLive = streamsLive
        self.tag = tag
    }

    /// Prints every job, blocking until the last one is done.
    package func run() throws(OutputError) {
        while let ticket = scheduler.tickets.receive() {
            try printBlock(ticket)
            scheduler.release()
        }
    }

    private func printBlock(_ ticket: JobTicket) throws(OutputError) {
        let job = ticket.job
        if streamsLive {
            let run = try wait(for: ticket.started)
            if run.spawned || run.isReplay { try reporter.beginBlock(job, commandLine: job.displayCommand, finished: nil) }
            _ = try drain(run.stdout, run.stderr, job: job, show: true)
            let outcome = try wait(for: ticket.outcome)
            // The run that ended is not the one streamed (the system refused the first spawn and
            // it was tried again): print the final run's output too.
            if outcome.result.stdout !== run.stdout {
                _ = try drain(outcome.result.stdout, outcome.result.stderr, job: job, show: true)
            }
            try reporter.finish(outcome, tail: [])
        } else {
            let outcome = try wait(for: ticket.outcome) { () throws(OutputError) in
                // Held until it ends, it cannot end while its output has nowhere to go.
                guard let run = ticket.started.outcome?.get(),
                    let waited = [run.stdout.waitedForSpace, run.stderr.waitedForSpace].compactMap({ $0 }).max(),
                    waited > SpillSpace.patience
                else { return }
                throw OutputError.noSpillSpace(job: job.number, label: SafeText.sanitize(job.label))
            }
            guard !outcome.status.neverRan else { return try reporter.finish(outcome, tail: []) }
            let show = !reporter.settings.quietSuccess || outcome.status.isFailure
            if show {
                try reporter.beginBlock(job, commandLine: String(decoding: outcome.commandLine, as: UTF8.self), finished: outcome)
            }
            let tail = try drain(outcome.result.stdout, outcome.result.stderr, job: job, show: show)
            try reporter.finish(outcome, tail: tail)
        }
    }

    /// Copies both streams to the console (if `show`) and the reports as bytes arrive, until both
    /// have ended. Returns the last lines, for `--quiet-success`.
    private func drain(_ stdout: CapturedOutput, _ stderr: CapturedOutput, job: Job, show: Bool) throws(OutputError) -> [String] {
        stdout.discardConsumed()
        stderr.discardConsumed()
        stdout.setWaker { [wakeUp] in wakeUp.signal() }
        stderr.setWaker { [wakeUp] in wakeUp.signal() }
        var tail = TailKeeper(limit: reporter.settings.quietSuccess ? reporter.settings.tailLines : 0)
        let prefix = tag ? Array((SafeText.sanitize(job.tag) + "\t").utf8) : []
        var prefixers = (out: LinePrefixer(prefix: prefix), err: LinePrefixer(prefix: prefix))
        while true {
            var moved = false
            let outBytes = stdout.consume()
            if !outBytes.isEmpty {
                moved = true
                tail.feed(outBytes)
                try reporter.output(
                    job, tag ? prefixers.out.process(outBytes) : outBytes, raw: outBytes, isError: false, show: show)
            }
            let errBytes = stderr.consume()
            if !errBytes.isEmpty {
                moved = true
                tail.feed(errBytes)
                try reporter.output(
                    job, tag ? prefixers.err.process(errBytes) : errBytes, raw: errBytes, isError: true, show: show)
            }
            if moved { continue }
            if stdout.isDrained, stderr.isDrained { break }
            if wakeUp.wait(timeout: .now() + 1) == .timedOut { try reporter.tick() }
        }
        return tail.text
    }

    /// Blocks until `future` resolves, ticking the progress line about once a second (and running
    /// `check` then, which may give up).
    private func wait<T>(for future: Future<T>, check: () throws(OutputError) -> Void = {}) throws(OutputError) -> T {
        while true {
            if let outcome = future.wait(timeout: .seconds(1)) { return outcome.get() }
            try reporter.tick()
            try check()
        }
    }
}
