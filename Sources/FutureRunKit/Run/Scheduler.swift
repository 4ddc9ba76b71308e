import Dispatch
import FutureCore
import FutureProcess
import Glibc

/// Turns jobs into running commands: pulls them from the ``JobSource`` on a thread of its own
/// (reading input may block; a short list from the command line is pulled on the caller's thread,
/// see ``start()``), hands each to the printer in input order, and submits it to a
/// ``CommandPool`` of the run's width. Retries and the halt policy are applied on the engine's thread
/// as attempts finish, so no thread waits per job.
///
/// At most ``window`` jobs are between the scheduler and the printer at once: that bounds memory
/// however long the input, and how far later jobs may run ahead of the oldest unprinted one.
public final class Scheduler: Sendable {
    public struct Settings: Sendable {
        public var width: Int
        public var shell: String
        public var timeout: Duration?
        public var grace: Duration
        public var retries: Int
        public var halt: HaltPolicy
        public var delay: Duration?
        public var workingDirectory: String?
        public var window: Int
        /// GNU make's jobserver, when futurerun runs under `make -jN`: then the width is 1 plus
        /// the tokens held, never more than `width`.
        var jobserver: Jobserver?
        /// The hosts of a run over several machines (`-S`); `nil`: this machine alone, `width` wide.
        var hosts: HostFleet.Settings?
    }

    private struct Counters {
        var halt: HaltCounter
        /// Stopped: by the halt policy or by ``stopAll()``.
        var halted = false
        var running: [Int: (label: String, run: CommandRun, since: ContinuousClock.Instant)] = [:]
    }

    private let settings: Settings
    private let source: JobSource
    private let pool: CommandPool
    /// The hosts, in a run over several machines.
    private let fleet: HostFleet?
    private let window: Window
    private let counters: Locked<Counters>
    /// Jobs that wait for jobs.
    private let graph = DependencyGraph()
    /// Tickets in input order, for the printer.
    let tickets: Channel<JobTicket>

    public init(settings: Settings, source: JobSource, notify: (@Sendable () -> Void)? = nil) {
        self.settings = settings
        self.source = source
        let notices = Notices()
        self.notices = notices
        if let hosts = settings.hosts {
            let fleet = HostFleet(hosts) { notice in notices.post(notice) }
            self.fleet = fleet
            self.pool = fleet.pool
        } else {
            self.fleet = nil
            self.pool = CommandPool(width: settings.jobserver == nil ? settings.width : 1)
        }
        self.window = Window(size: settings.window)
        self.counters = Locked(Counters(halt: HaltCounter(settings.halt)))
        self.tickets = Channel(notify: notify)
    }

    /// Whether the halt policy (or a signal) stopped the run, and the exit status the halt sets,
    /// if it sets one (``HaltCounter/exitStatus``).
    public var halted: (stopped: Bool, exitStatus: Int32?) {
        counters.withLock { ($0.halted, $0.halt.exitStatus) }
    }

    /// Hands every job over. Jobs from the command line that fit in the window are handed over on
    /// this thread, before it returns: nothing there can block (no input to read, no window to
    /// wait for, no delay), and a one-job run spares a thread and a wake-up on the way to its job.
    /// Otherwise starts the scheduler's thread (and the jobserver's) and returns at once.
    public func start() {
        fleet?.open()
        if let jobserver = settings.jobserver {
            let limit = settings.width
            jobserver.start(
                wanted: { [pool] in pool.queued > 0 && pool.width < limit },
                gained: { [pool] tokens in pool.width = min(limit, 1 + tokens) })
        }
        if let total = source.knownTotal, total <= settings.window, settings.delay == nil, settings.jobserver == nil {
            dispatchAll()
        } else {
            OSThread.detach(name: "futurerun-sched") { [self] in dispatchAll() }
        }
    }

    /// Gives every jobserver token back and closes the connections to other hosts (at the end of
    /// the run, also after a signal). Blocks until the connections are closed.
    public func finish() {
        settings.jobserver?.finish()
        fleet?.close()
    }

    /// The printer is done with a ticket: one more job may enter the window.
    public func release() { window.release() }

    /// Stops the run: starts nothing more and stops running jobs (TERM, KILL after the grace period).
    public func stopAll() {
        startNothingNew()
        let running = counters.withLock { $0.running.values.map(\.run) }
        for run in running { run.cancel() }
    }

    /// Starts nothing more; running jobs finish (SIGHUP). Jobs waiting end as not started.
    public func startNothingNew() {
        pool.stopStarting()  // first: the scheduler thread hands nothing more over from now on
        graph.cancelWaiting()
        counters.withLock { $0.halted = true }
    }

    /// Stops waiting for input (after a signal): the printers get no more jobs, and the scheduler
    /// thread, which may be blocked reading input or waiting out `--delay`, hands nothing more over
    /// (a blocked read is left behind; the process ends without it). If input was still open,
    /// `notice` is said first. Any thread.
    public func abandonInput(notice: String) {
        if !tickets.isClosed && source.knownTotal == nil { announce(notice) }
        tickets.close()
    }

    /// Labels of the running jobs and how long each has run.
    public func runningJobs() -> [(label: String, since: Duration)] {
        let now = ContinuousClock.now
        return counters.withLock { $0.running.sorted { $0.key < $1.key } }.map { ($0.value.label, now - $0.value.since) }
    }

    /// Blocks until no job process is left, or `limit` has passed.
    public func waitForRunningJobs(upTo limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while ProcessEngine.shared.runningCount > 0, ContinuousClock.now < deadline {
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
            // Launched first, handed over second: a printer waiting for this job then wakes once,
            // with the job already started when there is a free slot, not once for the ticket and
            // again for the start. A job that waits for others is launched when they have ended.
            graph.record(job)
            if let header = job.header, !header.prerequisites.isEmpty {
                wait(ticket, for: header)
            } else {
                launch(ticket, attempt: 1)
            }
            tickets.send(ticket)
            settings.jobserver?.nudge()
        }
        tickets.close()
    }

    // MARK: Any thread

    private let notices: Notices

    /// Queues a notice for the printer to show (at the next job's end or tick, within a second).
    public func announce(_ notice: String) { notices.post(notice) }

    /// Notices for the printer to show (each once).
    public func takeNotices() -> [String] { notices.take() }

    /// The system refused a spawn for lack of processes or descriptors: run fewer at once (see
    /// ``SpawnRefusal``), say so once, and try the job again. Returns false when it is time to give up.
    private func degrade(_ ticket: JobTicket, attempt: Int, refusals: Int) -> Bool {
        guard
            case .retry(let width, let delay) = SpawnRefusal.decide(refusals: refusals, running: pool.running, width: pool.width)
        else { return false }
        if pool.width > width {
            pool.width = width
            notices.postOnce("the system refused to start more processes; running at most \(width) jobs at once")
        }
        if let delay {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds) { [self] in
                launch(ticket, attempt: attempt, refusals: refusals + 1)
            }
        } else {
            launch(ticket, attempt: attempt, refusals: refusals + 1)
        }
        return true
    }

    /// Hands `ticket`'s job to the graph: it starts (or is skipped) once the jobs it waits for end.
    private func wait(_ ticket: JobTicket, for header: JobHeader) {
        graph.wait(ticket.job.number, for: header) { [self] decision in
            switch decision {
            case .run: launch(ticket, attempt: 1)
            // At the end of the engine's turn: a long chain of skipped jobs then ends one after
            // another, not each inside the one before it.
            case .skip(let reason): ProcessEngine.shared.afterThisTurn { [self] in neverRun(ticket, .skipped(reason)) }
            case .notStarted: ProcessEngine.shared.afterThisTurn { [self] in neverRun(ticket, .notStarted) }
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

    private func launch(_ ticket: JobTicket, attempt: Int, refusals: Int = 0) {
        let job = ticket.job
        if let reason = job.invalidReason ?? fleet?.noneLeft {
            let run = CommandRun.neverStarted()
            ticket.startPromise.tryComplete(.success(run))
            conclude(ticket, status: .unrunnable(reason), result: run.result.value, attempts: attempt, line: [])
            return
        }
        let placement = Locked<(line: [UInt8], seat: CommandPool.Seat, session: Int)>(([], .init(lane: 0, slot: 0), 0))
        let submitted = pool.submit(
            { [settings, fleet] seat in
                let line = job.commandLine(slot: seat.slot)
                var command = Self.command(for: line, job: job, slot: seat.slot, settings: settings)
                var session = 0
                if let fleet, fleet.isRemote(seat.lane) {
                    (command, session) = fleet.command(for: line, lane: seat.lane, local: command)
                }
                placement.withLock { $0 = (line, seat, session) }
                return command
            },
            order: job.number,
            onFinish: { [self] result in
                // On the engine's thread, before the slot is reused: retries and halting decide here.
                if let jobserver = settings.jobserver, pool.queued == 0, jobserver.giveBack() {
                    pool.width = max(1, 1 + jobserver.tokens)
                }
                let stopped = counters.withLock { counters in
                    counters.running[job.number] = nil
                    return counters.halted
                }
                let (line, seat, session) = placement.withLock { $0 }
                fleet?.jobEnded(lane: seat.lane, session: session)
                if case .failedToStart(let error) = result.status, [EAGAIN, EMFILE, ENFILE].contains(error), !stopped,
                    degrade(ticket, attempt: attempt, refusals: refusals)
                {
                    return
                }
                guard let fleet, fleet.isRemote(seat.lane), result.status == .exited(255), !stopped else {
                    return ended(ticket, attempt: attempt, result: result, line: line, seat: seat, stopped: stopped)
                }
                // ssh's own failure, or the job's exit status: the host's check tells. A job whose
                // connection dropped runs again elsewhere, and that is not another attempt.
                fleet.lostConnection(lane: seat.lane, session: session) { [self] alive in
                    if alive {
                        ended(ticket, attempt: attempt, result: result, line: line, seat: seat, stopped: stopped)
                    } else {
                        launch(ticket, attempt: attempt)
                    }
                }
            })
        // A job that no host can take now may need another connection.
        fleet?.jobsWaiting()
        submitted.onComplete { [self] outcome in
            let run = outcome.get()
            // The first start wins (a spawn the system refused is tried again with the same ticket).
            if attempt == 1 { ticket.startPromise.tryComplete(.success(run)) }
            if run.spawned {
                // Stopped meanwhile (stopAll ran before this run was recorded): stop it too.
                let stopped = counters.withLock { counters in
                    counters.running[job.number] = (job.label, run, .now)
                    return counters.halted
                }
                if stopped, settings.halt.urgency != .soon { run.cancel() }
                // It may have finished before it was recorded: then it is not running.
                if run.result.resolved { counters.withLock { _ = $0.running.removeValue(forKey: job.number) } }
            } else if let result = run.result.outcome?.get(), result.status == .cancelled {
                // Withdrawn before its turn (the pool stopped, or no host is left): onFinish never
                // runs for it.
                let stopped = counters.withLock { $0.halted }
                let status = stopped ? nil : fleet?.noneLeft.map(JobStatus.unrunnable)
                conclude(ticket, status: status ?? .notStarted, result: result, attempts: attempt, line: [])
            }
        }
    }

    /// An attempt of `ticket`'s job has ended: it runs again (`--retries`) or the job is over.
    private func ended(
        _ ticket: JobTicket, attempt: Int, result: CommandResult, line: [UInt8], seat: CommandPool.Seat, stopped: Bool
    ) {
        if RetryPolicy(retries: settings.retries).retries(after: result.succeeded, attempt: attempt, stopping: stopped) {
            ticket.earlierAttempts.withLock {
                $0.append(AttemptRecord(slot: seat.slot, host: fleet?.name(of: seat.lane), result))
            }
            launch(ticket, attempt: attempt + 1)
            return
        }
        conclude(
            ticket, status: Self.status(of: result), result: result, attempts: attempt, line: line, slot: seat.slot,
            host: fleet?.name(of: seat.lane))
    }

    static func status(of result: CommandResult) -> JobStatus {
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
        _ ticket: JobTicket, status: JobStatus, result: CommandResult, attempts: Int, line: [UInt8], slot: Int = 0,
        host: String? = nil
    ) -> JobOutcome {
        applyHaltPolicy(after: status)
        graph.ended(ticket.job, status)
        let outcome = JobOutcome(
            job: ticket.job, status: status, result: result, attempts: attempts, commandLine: line, slot: slot,
            host: host, earlierAttempts: ticket.earlierAttempts.withLock { $0 })
        ProcessEngine.shared.afterThisTurn { ticket.outcomePromise.succeed(outcome) }
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

    private func command(for line: [UInt8], job: Job, slot: Int) -> Command {
        Self.command(for: line, job: job, slot: slot, settings: settings)
    }

    static func command(for line: [UInt8], job: Job, slot: Int, settings: Settings) -> Command {
        var command = Command.shell(bytes: line, shell: settings.shell)
        command.environment = [
            ("FUTURERUN_JOB", String(job.number)),
            ("FUTURERUN_SLOT", String(slot)),
            ("FUTURERUN_NAME", job.name),
        ]
        command.workingDirectoryBytes = settings.workingDirectory.map(ArgumentText.bytes)
        command.timeout = settings.timeout
        command.gracePeriod = settings.grace
        return command
    }
}
