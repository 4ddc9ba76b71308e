import Dispatch
import FutureCore
import FutureProcess
import FutureRunModel
import Glibc
import Synchronization

/// The hosts of a run (`-S`): opens their connections in parallel at the start, makes each remote
/// job's command, tells a lost connection from a job's own exit status 255, takes out hosts that
/// cannot be reached or drop, and closes every connection at the end. ``HostRoster`` decides; this
/// type runs the ssh commands and applies the decisions to the pool's lanes, one lane per host.
///
/// Threads: ``open()`` and ``close()`` run on the caller's thread (the main one); the rest on the
/// thread that starts or ends a job, mostly the engine's, where the callbacks of its own ssh
/// commands run too. None of it blocks, but ``close()``.
package final class HostFleet: Sendable {
    /// What `-S`, `--ssh`, `--env` and `-j` say about the hosts.
    package struct Settings: Sendable {
        package var hosts: [HostSpec]
        /// `--ssh` as words (default `ssh`).
        package var ssh: [String]
        /// `--env NAME`: each variable's value here (`nil`: unset here, so unset there too).
        var forwarded: [(name: String, value: [UInt8]?)]
        /// `-j`, for the hosts without `N/`.
        package var jobs: Options.Jobs
        /// This machine's width in a local run, for `:` without `N/`.
        var localWidth: Int
        /// How many jobs may run at once over all hosts (the descriptor and process limits).
        package var runningLimit: Int = .max

        package init(
            hosts: [HostSpec], ssh: [String], forwarded: [(name: String, value: [UInt8]?)], jobs: Options.Jobs, localWidth: Int,
            runningLimit: Int = .max
        ) {
            self.hosts = hosts
            self.ssh = ssh
            self.forwarded = forwarded
            self.jobs = jobs
            self.localWidth = localWidth
            self.runningLimit = runningLimit
        }
    }

    package let settings: Settings
    /// A private directory for the connections' control sockets; removed by ``close()``.
    private let controlDirectory: String
    /// The engine the jobs' and the connections' ssh commands run on.
    private let engine: ProcessEngine
    /// The pool jobs run in, one lane per host, as wide as the host may run jobs now; and the
    /// writer of its widths.
    let governor: WidthGovernor
    var pool: CommandPool { governor.pool }
    /// The roster, and the jobs whose ssh ended with 255 on a host being checked, by lane: each
    /// is told whether the connection was alive (the 255 was the job's own) or not (the job must
    /// run elsewhere). One lock: a job cannot join a check that has already answered.
    private let state: Locked<(roster: HostRoster, waiting: [Int: [@Sendable (_ alive: Bool) -> Void]])>
    /// By lane; `nil` for this machine.
    private let remotes: [RemoteHost?]
    private let announce: @Sendable (String) -> Void
    /// The connections' masters (engine children, open or still logging in); once `closing`, none
    /// is started.
    private let masters = Locked<(closing: Bool, runs: [CommandRun])>((false, []))

    /// - Parameters:
    ///   - controlDirectory: a private directory for the connections' control sockets
    ///     (``makeControlDirectory()``); removed by ``close()``.
    ///   - engine: the engine the ssh commands run on.
    ///   - announce: shows a notice (a host taken out), from any thread.
    package init(
        _ settings: Settings, controlDirectory: String, engine: ProcessEngine = .shared,
        announce: @escaping @Sendable (String) -> Void
    ) {
        self.settings = settings
        self.engine = engine
        self.controlDirectory = controlDirectory
        self.announce = announce
        let roster = HostRoster(settings.hosts, jobs: settings.jobs, localWidth: settings.localWidth)
        var limits = WidthLimits()
        limits.set(
            .systemLimits, settings.runningLimit == .max ? nil : settings.runningLimit,
            reason: "the descriptor and process limits (ulimit -n, -u)")
        governor = WidthGovernor(
            pool: CommandPool(laneWidths: settings.hosts.indices.map { roster.width(of: $0) }, engine: engine), limits: limits)
        state = Locked((roster, [:]))
        remotes = settings.hosts.enumerated().map { index, spec in
            spec.isLocal
                ? nil : RemoteHost(spec, index: index, ssh: settings.ssh, controlDirectory: controlDirectory)
        }
    }

    /// Starts connecting to every remote host at once. Never blocks: a host takes jobs as soon as
    /// it has connected, whatever the others do.
    package func open() {
        // Should futurerun be killed, the guardian removes what the masters leave in it.
        engine.removeWhenThisProcessDies(directory: controlDirectory)
        for (lane, host) in remotes.enumerated() {
            if let host { connect(host, lane: lane, connection: 0) }
        }
    }

    /// Whether `lane` is a remote host's.
    func isRemote(_ lane: Int) -> Bool { remotes[lane] != nil }

    /// The host of `lane`, as status lines and reports name it.
    package func name(of lane: Int) -> String { settings.hosts[lane].name }

    /// When every host is out: the reason the jobs left cannot run.
    var noneLeft: String? { state.withLock { $0.roster.noneLeft } }

    /// Logs in to `host` as its connection number `connection`: a master that runs, as an engine
    /// child, until the run ends. The host is up once the master's session says its CPU count.
    private func connect(_ host: RemoteHost, lane: Int, connection: Int) {
        // Started under the lock: close() either sees this one or stops it starting.
        let master: CommandRun? = masters.withLock { masters in
            guard !masters.closing else { return nil }
            let run = engine.start(host.openCommand(connection: connection))
            masters.runs.append(run)
            return run
        }
        guard let master else { return }
        let answered = Atomic<Bool>(false)
        let answer: @Sendable () -> Void = { [self] in
            guard let cpus = RemoteInvocation.cpus(inConnectionOutput: master.stdout.bytes()),
                answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
            else { return }
            opened(host, lane: lane, connection: connection, cpus: cpus)
        }
        master.stdout.setWaker(answer)
        answer()
        master.result.onComplete(on: .inline) { [self] outcome in
            answer()
            guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
                return  // a connection that ends later is found out by its jobs (ssh's 255, then a check)
            }
            let result = outcome.get()
            // A further connection that fails leaves the host running on the ones it has.
            if connection == 0 {
                takeOut(lane, reason: Self.reason(result))
            } else {
                state.withLock { $0.roster.connectionOpened(lane, false) }
            }
        }
        // ssh's own connect timeout is the system's (minutes) unless the user's config sets one.
        DispatchQueue.global().asyncAfter(deadline: .now() + RemoteHost.loginLimit.seconds) {
            if !answered.load(ordering: .acquiring) { master.cancel() }
        }
    }

    /// Connection `connection` of `host` answered with the host's CPU count: the host takes jobs.
    private func opened(_ host: RemoteHost, lane: Int, connection: Int, cpus: Int) {
        host.opened(connection: connection)
        state.withLock { state in
            if connection == 0 { state.roster.connected(lane, cpus: cpus) } else { state.roster.connectionOpened(lane, true) }
        }
        applyWidth(lane)
        jobsWaiting()
    }

    /// Jobs were queued: a host whose connections are all full, and whose slots allow more, opens
    /// one more connection (one at a time, each a login), so that connections open as jobs need
    /// them. Any thread; never blocks.
    func jobsWaiting() {
        let waiting = pool.queued
        guard waiting > 0 else { return }
        for (lane, host) in remotes.enumerated() {
            guard let host else { continue }
            let running = pool.running(inLane: lane)
            let next: Int? = state.withLock { state in
                state.roster.needsConnection(lane, running: running, waiting: waiting)
                    ? state.roster.hosts[lane].connections : nil
            }
            if let next { connect(host, lane: lane, connection: next) }
        }
    }

    /// Why a connection could not be opened: ssh's last line on stderr, or how the ssh ended.
    private static func reason(_ result: CommandResult) -> String {
        let said = String(decoding: result.stderr.bytes(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }.last { !$0.isEmpty }
        switch result.status {
        case .cancelled: return "no answer within \(DurationFormat.format(RemoteHost.loginLimit))"
        case .exited(0):
            let answer = String(decoding: result.stdout.bytes(), as: UTF8.self).split(whereSeparator: \.isNewline).last ?? ""
            return "its CPU count could not be read: '\(SafeText.sanitize(String(answer.prefix(40))))'"
        default: return said.map(SafeText.sanitize) ?? "ssh " + StatusText.describe(result.status)
        }
    }

    // MARK: Jobs (any thread)

    /// The command that runs `attempt` on the host of `lane` (its line in its shell there, with its
    /// environment, directory and grace), and the session of the host it takes (give it back with ``jobEnded(lane:session:)``).
    package func command(for attempt: AttemptSpec, lane: Int) -> (Command, session: Int) {
        guard let host = remotes[lane] else { return (attempt.localCommand, 0) }
        let environment = attempt.environment.map { (name: $0.name, value: Optional(Array($0.value.utf8))) } + settings.forwarded
        let payload = RemoteInvocation.payload(
            command: attempt.line, shell: attempt.shell, environment: environment,
            workingDirectory: attempt.workingDirectory, grace: attempt.grace)
        let session = host.takeSession()
        var command = host.jobCommand(payload: payload, connection: session)
        command.timeout = attempt.timeout
        command.gracePeriod = attempt.grace
        return (command, session)
    }

    func jobEnded(lane: Int, session: Int) { remotes[lane]?.giveBack(session: session) }

    /// A job on `lane` ended with ssh's exit status 255: either the connection is gone or the job
    /// itself exited 255. Checks the host (once for all such jobs), taking nothing new there until
    /// the answer; `decide` is told whether the connection was alive, on the engine's thread.
    func lostConnection(lane: Int, session: Int, decide: @escaping @Sendable (_ alive: Bool) -> Void) {
        guard let host = remotes[lane] else { return decide(true) }
        let (check, out) = state.withLock { state in
            let check = state.roster.lostConnection(lane)
            let out = state.roster.isOut(lane)
            if !out { state.waiting[lane, default: []].append(decide) }
            return (check, out)
        }
        if out { return decide(false) }
        guard check else { return }
        applyWidth(lane)
        host.checkCommand(connection: session).run().onComplete(on: .inline) { [self] outcome in
            let alive = outcome.get().succeeded
            let (notice, deciders) = state.withLock { state in
                (
                    state.roster.checked(lane, alive: alive, reason: "its connection dropped"),
                    state.waiting.removeValue(forKey: lane) ?? []
                )
            }
            if let notice { announce(notice) }
            applyWidth(lane)
            for decide in deciders { decide(alive) }
            withdrawIfNoneLeft()
        }
    }

    private func takeOut(_ lane: Int, reason: String) {
        if let notice = state.withLock({ $0.roster.takeOut(lane, reason: reason) }) { announce(notice) }
        applyWidth(lane)
        withdrawIfNoneLeft()
    }

    /// Jobs queued for a host when none is left can never start: they end now (as cannot run).
    private func withdrawIfNoneLeft() {
        if noneLeft != nil { pool.withdrawQueued() }
    }

    private func applyWidth(_ lane: Int) {
        governor.limitLane(lane, to: state.withLock { $0.roster.width(of: lane) })
    }

    // MARK: The end (main thread)

    /// Closes every connection, those still being opened too, and removes the control directory.
    /// Blocks until the masters have ended (each at most its grace period).
    package func close() {
        let runs = masters.withLock { masters in
            masters.closing = true
            return masters.runs
        }
        // TERM to each master's group: ssh closes its sessions and removes its socket.
        for run in runs { run.cancel() }
        for run in runs { _ = run.result.value }
        // A master that did not remove its socket leaves it here.
        Directory.remove(controlDirectory)
        engine.removeWhenThisProcessDies(directory: nil)
    }

    /// Makes the private directory (0700) for the control sockets: in `$TMPDIR` when its path is
    /// short enough for a socket's (108 bytes with ssh's temporary suffix), else in /tmp.
    static func makeControlDirectory() -> String? {
        let base = TemporaryDirectory.path.utf8.count < 48 ? TemporaryDirectory.path : "/tmp"
        return TemporaryNames.directory("futurerun-ssh", in: base)
    }
}
