import Dispatch
import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel

/// `--live`: lines from every running job as soon as they are complete, each prefixed with the
/// job's colored `[label]`; a line is never split or mixed with another job's. A last line without
/// a newline is printed with one when its job ends. Status lines follow in completion order.
///
/// Runs on the main thread.
package final class LivePrinter {
    private final class Active {
        let ticket: JobTicket
        var streams: (out: CapturedOutput, err: CapturedOutput)?
        var partial: (out: [UInt8], err: [UInt8]) = ([], [])
        init(ticket: JobTicket) { self.ticket = ticket }
    }

    private let scheduler: Scheduler
    private let reporter: JobReporter
    private let wakeUp: DispatchSemaphore
    private var active: [Active] = []

    /// - Parameter wakeUp: signalled by the scheduler for every new job, and by the jobs' output.
    /// How output is passed on as it comes.
    package typealias Mode = LiveMode

    private let mode: Mode
    /// `--tag`/`--tagstring`: with whole lines as they are, each starts with the job's tag and a tab.
    private let tag: Bool

    package init(
        scheduler: Scheduler, reporter: JobReporter, wakeUp: DispatchSemaphore, mode: Mode = .labeledLines, tag: Bool = false
    ) {
        self.scheduler = scheduler
        self.reporter = reporter
        self.wakeUp = wakeUp
        self.mode = mode
        self.tag = tag
    }

    package func run() throws(OutputError) {
        while true {
            var moved = false
            while let ticket = scheduler.tickets.tryReceive() {
                active.append(Active(ticket: ticket))
                ticket.started.onComplete(on: .inline) { [wakeUp] _ in wakeUp.signal() }
                ticket.outcome.onComplete(on: .inline) { [wakeUp] _ in wakeUp.signal() }
                moved = true
            }
            var index = 0
            while index < active.count {
                let job = active[index]
                if try service(job) {
                    active.remove(at: index)
                    scheduler.release()
                    moved = true
                } else {
                    index += 1
                }
            }
            if active.isEmpty, scheduler.tickets.isFinished { return }
            if !moved, wakeUp.wait(timeout: .now() + 1) == .timedOut { try reporter.tick() }
        }
    }

    /// Prints what `job` has ready; returns true when it is completely done.
    private func service(_ job: Active) throws(OutputError) -> Bool {
        if job.streams == nil, let started = job.ticket.started.outcome {
            let run = started.get()
            follow(job, run.stdout, run.stderr)
        }
        guard let streams = job.streams else { return false }
        let styled: [UInt8]
        switch mode {
        case .labeledLines:
            let label = "[\(SafeText.sanitize(job.ticket.job.label))] "
            styled = Array(reporter.style.palette(label, index: job.ticket.job.number).utf8)
        case .lines where tag: styled = Array((SafeText.sanitize(job.ticket.job.tag) + "\t").utf8)
        case .lines, .asRead: styled = []
        }
        try emitLines(&job.partial.out, streams.out.consume(), prefix: styled, job: job.ticket.job, isError: false)
        try emitLines(&job.partial.err, streams.err.consume(), prefix: styled, job: job.ticket.job, isError: true)
        guard streams.out.isDrained, streams.err.isDrained, let outcome = job.ticket.outcome.outcome?.get() else { return false }
        // Retries: the final attempt's output follows the first attempt's.
        if outcome.result.stdout !== streams.out {
            follow(job, outcome.result.stdout, outcome.result.stderr)
            return false
        }
        if !job.partial.out.isEmpty {
            try emitLines(&job.partial.out, [0x0A], prefix: styled, job: job.ticket.job, isError: false)
        }
        if !job.partial.err.isEmpty {
            try emitLines(&job.partial.err, [0x0A], prefix: styled, job: job.ticket.job, isError: true)
        }
        try reporter.finish(outcome, tail: [])
        return true
    }

    private func follow(_ job: Active, _ out: CapturedOutput, _ err: CapturedOutput) {
        for stream in [out, err] {
            stream.discardConsumed()
            stream.setWaker { [wakeUp] in wakeUp.signal() }
        }
        job.streams = (out, err)
    }

    private func emitLines(
        _ partial: inout [UInt8], _ bytes: [UInt8], prefix: [UInt8], job: Job, isError: Bool
    ) throws(OutputError) {
        guard !bytes.isEmpty else { return }
        if mode == .asRead { return try reporter.output(job, bytes, isError: isError, show: true) }
        partial += bytes
        guard let lastNewline = partial.lastIndex(of: 0x0A) else { return }
        var block: [UInt8] = []
        let raw = Array(partial[...lastNewline])
        var start = 0
        while start <= lastNewline {
            let end = partial[start...lastNewline].firstIndex(of: 0x0A)!
            block += prefix
            block += partial[start...end]
            start = end + 1
        }
        partial.removeFirst(lastNewline + 1)
        try reporter.output(job, block, raw: raw, isError: isError, show: true)
    }
}
