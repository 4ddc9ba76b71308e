import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// Decides which job starts when: pulls jobs from the ``JobPipeline`` on a thread of its own
/// (reading input may block; a short list from the command line is pulled on the caller's thread,
/// see ``start()``), hands each to the printer in input order, and submits its attempts to the
/// ``Launcher``, which decides where they run and how many at once. Retries, the halt policy and
/// the jobs that wait for jobs are applied on the engine's thread as attempts finish, so no thread
/// waits per job.
///
/// At most ``window`` jobs are between the scheduler and the printer at once: that bounds memory
/// however long the input, and how far later jobs may run ahead of the oldest unprinted one.
package final class Scheduler: Sendable {
    /// How each job's command is made and how its attempts are judged; how many run at once is
    /// the launcher's.
    package struct Settings: Sendable {
        package var shell: String
        package var timeout: Duration?
        package var grace: Duration
        package var retries: Int
        package var halt: HaltPolicy
        package var delay: Duration?
        package var workingDirectory: String?
        package var window: Int
        /// Plain lines run without the shell (``DirectExec``); `nil`: every line through it.
        package var directExec: DirectExec? = nil

        package init(
            shell: String, timeout: Duration? = nil, grace: Duration, retries: Int, halt: HaltPolicy, delay: Duration? = nil,
            workingDirectory: String? = nil, window: Int, directExec: DirectExec? = nil
        ) {
            self.shell = shell
            self.timeout = timeout
            self.grace = grace
            self.retries = retries
            self.halt = halt
            self.delay = delay
            self.workingDirectory = workingDirectory
            self.window = window
            self.directExec = directExec
        }
    }

    private struct Counters {
        var halt: HaltCounter
        /// Stopped: by the halt policy or by ``stopAll()``.
        var halted = false
        var running: [Int: (label: String, run: CommandRun, since: ContinuousClock.Instant)] = [:]
    }

    private let settings: Settings
    /// `--cache`: jobs whose end it holds are replayed, not run.
    private let cache: JobCache?
    private let source: JobPipeline
    private let launcher: any Launcher
    /// The engine the attempts run on: its turns, its running processes.
    private let engine: any AttemptEngine
    private var pool: CommandPool { launcher.pool }
    private let window: Window
    private let counters: Locked<Counters>
    /// Jobs that wait for jobs.
    private let graph = DependencyGraph()
    /// Tickets in input order, for the printer.
    package let tickets: Channel<JobTicket>
    /// Set by ``abandonInput(notice:)``; held while a job is launched and handed over.
    private let inputAbandoned = Locked(false)

    /// - Parameters:
    ///   - engine: the engine the launcher's attempts run on.
    ///   - notices: where the scheduler and the launcher post what the printer should say.
    ///   - notify: called when a ticket is handed to the printer.
    package init(
        settings: Settings, source: JobPipeline, launcher: any Launcher, engine: any AttemptEngine,
        notices: Notices, cache: JobCache? = nil, notify: (@Sendable () -> Void)? = nil
    ) {
        self.engine = engine
        self.settings = settings
        self.cache = cache
        self.source = source
        self.notices = notices
        self.launcher = launcher
        self.window = Window(size: settings.window)
        self.counters = Locked(Counters(halt: HaltCounter(settings.halt)))
        self.tickets = Channel(notify: notify)
    }

    /// Whether the halt policy (or a signal) stopped the run, and the exit status the halt sets,
    /// if it sets one (``HaltCounter/exitStatus``).
    package var halted: (stopped: Bool, exitStatus: Int32?) {
        counters.withLock { ($0.halted, $0.halt.exitStatus) }
    }

    /// Hands every job over. Jobs from the command line that fit in the window are handed over on
    /// this thread, before it returns: nothing there can block (no input to read, no window to
    /// wait for, no delay), and a one-job run spares a thread and a wake-up on the way to its job.
    /// Otherwise starts the scheduler's thread (and the launcher's, if it has one) and returns at once.
    package func start() {
        launcher.open()
        if let total = source.knownTotal, total <= settings.window, settings.delay == nil, launcher.handsOverInline {
            dispatchAll()
        } else {
            OSThread.detach(name: "futurerun-sched") { [self] in dispatchAll() }
        }
    }

    /// Closes the launcher (at the end of the run, also after a signal): blocks until it is done.
    package func finish() { launcher.close() }

    /// The printer is done with a ticket: one more job may enter the window.
    package func release() { window.release() }

    /// Stops the run: starts nothing more and stops running jobs (TERM, KILL after the grace period).
    package func stopAll() {
        startNothingNew()
        let running = counters.withLock { $0.running.values.map(\.run) }
        for run in running { run.cancel() }
    }

    /// Starts nothing more; running jobs finish (SIGHUP). Jobs waiting end as not started.
    package func startNothingNew() {
        pool.stopStarting()  // first: the scheduler thread hands nothing more over from now on
        graph.cancelWaiting()
        counters.withLock { $0.halted = true }
    }

    /// Stops waiting for input (after a signal): the printers get no more jobs, and the scheduler
    /// thread, which may be blocked reading input or waiting out `--delay`, hands nothing more over
    /// (a blocked read is left behind; the process ends without it). If input was still open,
    /// `notice` is said first. Any thread; waits for a job being launched and handed over
    /// (``handOver(_:)``: nothing there blocks but a cache lookup).
    package func abandonInput(notice: String) {
        inputAbandoned.withLock { $0 = true }
        if !tickets.isClosed && source.knownTotal == nil { announce(notice) }
        tickets.close()
    }

    /// Labels of the running jobs and how long each has run; not those that wait behind another in
    /// a warm shell.
    package func runningJobs() -> [(label: String, since: Duration)] {
        let now = ContinuousClock.now
        return counters.withLock { $0.running.sorted { $0.key < $1.key } }.filter { !$0.value.run.isWaiting }.map {
            ($0.value.label, now - $0.value.since)
        }
    }

    /// Why jobs wait although `-j` would start them, if they do: the width provider that holds
    /// them back (memory, load, make's jobserver, …), as it says it. Any thread.
    package func heldBack() -> String? { launcher.governor.holdingBack?.limit.reason }

    /// Blocks until no job process is left, or `limit` has passed.
    package func waitForRunningJobs(upTo limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while engine.runningCount > 0, ContinuousClock.now < deadline {
            OSThread.sleep(until: .now + .milliseconds(10))
        }
    }

    // MARK: Scheduler thread (or the caller of start, see there)

    private func dispatchAll() {
        var lastStart: ContinuousClock.Instant?
        while true {
            window.acquire()
            // Every halt stops the pool; after `--halt soon` it still admits jobs for its free slots.
            guard pool.admitsMore, let job = source.next() else { break }
            // Jobs --resume skipped before this one still end, for the jobs that wait for them.
            for (name, status) in source.takeSettled() { graph.settle(name, status) }
            let ticket = JobTicket(job: job)
            if let delay = settings.delay {
                if let lastStart { OSThread.sleep(until: lastStart + delay) }
                lastStart = .now
            }
            graph.record(job)
            guard handOver(ticket) else { break }
        }
        tickets.close()
    }

    /// Launches `ticket`'s job and hands the ticket to the printer, unless the input was
    /// abandoned: then neither. Launched first, handed over second: a printer waiting for this
    /// job then wakes once, with the job already started when there is a free slot, not once for
    /// the ticket and again for the start. A job that waits for others is launched when they
    /// have ended.
    private func handOver(_ ticket: JobTicket) -> Bool {
        // Under the lock ``abandonInput(notice:)`` takes: a job launched always reaches the
        // printer (else it would run on unreported, and be killed at futurerun's exit without
        // its grace period).
        inputAbandoned.withLock { abandoned in
            guard !abandoned else { return false }
            if let header = ticket.job.header, !header.prerequisites.isEmpty {
                wait(ticket, for: header)
            } else {
                begin(ticket)
            }
            tickets.send(ticket)
            return true
        }
    }

    // MARK: Any thread

    private let notices: Notices

    /// Queues a notice for the printer to show (at the next job's end or tick, within a second).
    package func announce(_ notice: String) { notices.post(notice) }

    /// Notices for the printer to show (each once).
    package func takeNotices() -> [String] { notices.take() }

    /// Hands `ticket`'s job to the graph: it starts (or is skipped) once the jobs it waits for end.
    private func wait(_ ticket: JobTicket, for header: JobHeader) {
        graph.wait(ticket.job.number, for: header) { [self] decision in
            switch decision {
            // On the engine's thread: a lookup, which reads files, goes elsewhere.
            case .run where cache != nil: DispatchQueue.global().async { [self] in begin(ticket) }
            case .run: launch(ticket, attempt: 1)
            // At the end of the engine's turn: a long chain of skipped jobs then ends one after
            // another, not each inside the one before it.
            case .skip(let reason): engine.afterThisTurn { [self] in neverRun(ticket, .skipped(reason)) }
            case .notStarted: engine.afterThisTurn { [self] in neverRun(ticket, .notStarted) }
            }
            return ticket.outcome
        } ifCancelled: { [self] in
            neverRun(ticket, .notStarted)
        }
    }

    /// Ends a job that never runs (skipped, or the run stopped while it waited).
    @discardableResult
    private func neverRun(_ ticket: JobTicket, _ status: JobStatus) -> JobOutcome {
        let run = CommandRun.neverStarted()
        ticket.startPromise.tryComplete(.success(run))
        return conclude(
            ticket, status: status, result: run.result.outcome!.get(), attempts: 0, line: ticket.job.commandLine(slot: 1))
    }

    /// Starts the job's first attempt, unless the cache holds its end: then that is replayed and no
    /// process runs. Not on the engine's thread: a lookup reads the files the key covers.
    private func begin(_ ticket: JobTicket) {
        guard let cache, ticket.job.invalidReason == nil else { return launch(ticket, attempt: 1) }
        switch cache.lookup(ticket.job) {
        case .hit(let entry):
            let run = CommandRun.replayed(stdout: entry.stdout, stderr: entry.stderr, status: entry.status)
            ticket.startPromise.tryComplete(.success(run))
            let result = run.result.outcome!.get()
            var placement = Placement.unplaced
            placement.path = .cached
            conclude(
                ticket, status: Self.status(of: result), result: result, attempts: 1,
                line: ticket.job.commandLine(slot: 1), placement: placement)
        case .miss(let manifest, let explanation):
            if let explanation { announce(explanation) }
            ticket.cacheMiss.withLock { $0 = manifest }
            launch(ticket, attempt: 1)
        }
    }

    private func launch(_ ticket: JobTicket, attempt: Int, refusals: Int = 0) {
        let job = ticket.job
        if let reason = job.invalidReason ?? launcher.unavailable {
            let run = CommandRun.neverStarted()
            ticket.startPromise.tryComplete(.success(run))
            conclude(ticket, status: .unrunnable(reason), result: run.result.value, attempts: attempt, line: [])
            return
        }
        let placed = Locked<(line: [UInt8], placement: Placement)>(([], Placement.unplaced))
        let submitted = pool.submit(
            { [settings, launcher] seat in
                let attempt = Self.attempt(of: job, slot: seat.slot, settings: settings)
                var (command, placement) = launcher.place(attempt, seat: seat)
                if attempt.words != nil { placement.path = .direct }
                placed.withLock { $0 = (attempt.line, placement) }
                return command
            },
            order: job.number,
            onFinish: { [self] result in
                // On the engine's thread, before the slot is reused: retries and halting decide here.
                let stopped = counters.withLock { counters in
                    counters.running[job.number] = nil
                    return counters.halted
                }
                let (line, placement) = placed.withLock { $0 }
                launcher.judge(result, at: placement, refusals: refusals, stopping: stopped) { [self] verdict in
                    switch verdict {
                    case .stands:
                        ended(ticket, attempt: attempt, result: result, line: line, placement: placement, stopped: stopped)
                    case .signaled(let signal):
                        var seen = result
                        (seen.status, seen.exitCode, seen.signal) = (.signaled(signal), nil, signal)
                        ended(ticket, attempt: attempt, result: seen, line: line, placement: placement, stopped: stopped)
                    case .placeEnded:
                        startNothingNew()
                        conclude(ticket, status: .stopped, result: result, attempts: attempt, line: line, placement: placement)
                    case .lost:
                        ticket.requeued.withLock { $0 += 1 }
                        ticket.earlierAttempts.withLock { $0.append(AttemptRecord(placement, result, requeued: true)) }
                        launch(ticket, attempt: attempt)
                    case .refused(let delay?):
                        DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds) { [self] in
                            launch(ticket, attempt: attempt, refusals: refusals + 1)
                        }
                    case .refused(nil): launch(ticket, attempt: attempt, refusals: refusals + 1)
                    }
                }
            })
        launcher.queued()
        submitted.onComplete(on: .inline) { [self] outcome in
            let run = outcome.get()
            // The first start wins (a spawn the system refused is tried again with the same ticket).
            if attempt == 1 { ticket.startPromise.tryComplete(.success(run)) }
            if run.spawned {
                // Stopped meanwhile (stopAll ran before this run was recorded): stop it too.
                let stopped = counters.withLock { counters in
                    counters.running[job.number] = (job.label, run, .now)
                    return counters.halted
                }
                launcher.started(run, at: placed.withLock { $0.placement })
                if stopped, settings.halt.urgency != .soon { run.cancel() }
                // It may have finished before it was recorded: then it is not running.
                if run.result.resolved { counters.withLock { _ = $0.running.removeValue(forKey: job.number) } }
            } else if let result = run.result.outcome?.get(), result.status == .cancelled {
                // Withdrawn before its turn (the pool stopped, or nothing can run it any more):
                // onFinish never runs for it.
                let stopped = counters.withLock { $0.halted }
                let status = stopped ? nil : launcher.unavailable.map(JobStatus.unrunnable)
                conclude(ticket, status: status ?? .notStarted, result: result, attempts: attempt, line: [])
            }
        }
    }

    /// An attempt of `ticket`'s job has ended: it runs again (`--retries`) or the job is over.
    private func ended(
        _ ticket: JobTicket, attempt: Int, result: CommandResult, line: [UInt8], placement: Placement, stopped: Bool
    ) {
        if RetryPolicy(retries: settings.retries).retries(after: result.succeeded, attempt: attempt, stopping: stopped) {
            ticket.earlierAttempts.withLock {
                $0.append(AttemptRecord(placement, result))
            }
            launch(ticket, attempt: attempt + 1)
            return
        }
        conclude(
            ticket, status: Self.status(of: result), result: result, attempts: attempt, line: line, placement: placement)
    }

    package static func status(of result: CommandResult) -> JobStatus {
        switch result.status {
        case .exited(0): .succeeded
        case .cancelled: result.processID == 0 ? .notStarted : .stopped
        default: .failed(result.status)
        }
    }

    /// The job is over. The halt policy decides now; the printer learns of it at the end of the
    /// engine's turn, once the job that takes the freed slot has been spawned.
    @discardableResult
    private func conclude(
        _ ticket: JobTicket, status: JobStatus, result: CommandResult, attempts: Int, line: [UInt8],
        placement: Placement? = nil
    ) -> JobOutcome {
        applyHaltPolicy(after: status)
        graph.ended(ticket.job, status)
        let outcome = JobOutcome(
            job: ticket.job, status: status, result: result, attempts: attempts, commandLine: line, placement: placement,
            earlierAttempts: ticket.earlierAttempts.withLock { $0 }, requeued: ticket.requeued.withLock { $0 },
            admission: placement.flatMap { $0.path == .cached ? nil : launcher.admissionTimes(at: $0) } ?? .none,
            cacheMiss: ticket.cacheMiss.withLock { $0 })
        engine.afterThisTurn { ticket.outcomePromise.succeed(outcome) }
        return outcome
    }

    private func applyHaltPolicy(after status: JobStatus) {
        let halt = settings.halt
        let decision = counters.withLock { counters -> Bool in
            guard counters.halt.record(status, total: source.knownTotal), !counters.halted else { return false }
            counters.halted = true
            return true
        }
        guard decision else { return }
        // Soon: the jobs that would be running now, had the scheduler handed them over before
        // this one ended, still run, as under GNU parallel; the slot of this one is not refilled.
        pool.stopStarting(admittingFreeSlots: halt.urgency == .soon)
        if halt.urgency == .now {
            let running = counters.withLock { $0.running.values.map(\.run) }
            for run in running { run.cancel() }
        }
    }

    /// `job`'s attempt in `slot`: its line for the slot, exec'd directly when it needs no shell
    /// (``DirectExec``), with the run's shell, directory, timeout and grace, and the job's input.
    package static func attempt(of job: Job, slot: Int, settings: Settings) -> AttemptSpec {
        let line = job.commandLine(slot: slot)
        return AttemptSpec(
            line: line, words: settings.directExec?.command(for: line), shell: settings.shell,
            environment: [
                ("FUTURERUN_JOB", String(job.number)),
                ("FUTURERUN_SLOT", String(slot)),
                ("FUTURERUN_NAME", job.name),
            ],
            workingDirectory: settings.workingDirectory.map(ArgumentText.bytes), timeout: settings.timeout,
            grace: settings.grace, input: job.input)
    }
}
