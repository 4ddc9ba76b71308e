import FutureCore
import FutureProcess
import Glibc

/// The hosts of a run (`-S`): opens their connections in parallel at the start, makes each remote
/// job's command, tells a lost connection from a job's own exit status 255, takes out hosts that
/// cannot be reached or drop, and closes every connection at the end. ``HostRoster`` decides; this
/// type runs the ssh commands and applies the decisions to the pool's lanes, one lane per host.
///
/// Threads: ``open()`` and ``close()`` run on the caller's thread (the main one); the rest on the
/// thread that starts or ends a job, mostly the engine's, where the callbacks of its own ssh
/// commands run too. None of it blocks, but ``close()``.
final class HostFleet: Sendable {
    /// What `-S`, `--ssh`, `--env` and `-j` say about the hosts.
    struct Settings: Sendable {
        var hosts: [HostSpec]
        /// `--ssh` as words (default `ssh`).
        var ssh: [String]
        /// `--env NAME`: each variable's value here (`nil`: unset here, so unset there too).
        var forwarded: [(name: String, value: String?)]
        /// `-j`, for the hosts without `N/`.
        var jobs: Options.Jobs
        /// This machine's width in a local run, for `:` without `N/`.
        var localWidth: Int
        /// A private directory for the connections' control sockets; removed by ``close()``.
        var controlDirectory: String
    }

    let settings: Settings
    /// The pool jobs run in: one lane per host, as wide as the host may run jobs now.
    let pool: CommandPool
    /// The roster, and the jobs whose ssh ended with 255 on a host being checked, by lane: each
    /// is told whether the connection was alive (the 255 was the job's own) or not (the job must
    /// run elsewhere). One lock: a job cannot join a check that has already answered.
    private let state: Locked<(roster: HostRoster, waiting: [Int: [@Sendable (_ alive: Bool) -> Void]])>
    /// By lane; `nil` for this machine.
    private let remotes: [RemoteHost?]
    private let announce: @Sendable (String) -> Void
    /// Connections being opened, and how many each lane has tried; once `closing`, none is started.
    /// A run can end before a host has connected: ``close()`` must then stop or close those too,
    /// or a master would stay behind in the background.
    private let openings = Locked<(closing: Bool, inFlight: [Future<CommandResult>], tried: [Int: Int])>((false, [], [:]))

    /// - Parameter announce: shows a notice (a host taken out), from any thread.
    init(_ settings: Settings, announce: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.announce = announce
        let roster = HostRoster(settings.hosts, jobs: settings.jobs, localWidth: settings.localWidth)
        pool = CommandPool(laneWidths: settings.hosts.indices.map { roster.width(of: $0) })
        state = Locked((roster, [:]))
        remotes = settings.hosts.enumerated().map { index, spec in
            spec.isLocal
                ? nil : RemoteHost(spec, index: index, ssh: settings.ssh, controlDirectory: settings.controlDirectory)
        }
    }

    /// Starts connecting to every remote host at once. Never blocks: a host takes jobs as soon as
    /// it has connected, whatever the others do.
    func open() {
        for (lane, host) in remotes.enumerated() {
            if let host { connect(host, lane: lane, connection: 0) }
        }
    }

    /// Whether `lane` is a remote host's.
    func isRemote(_ lane: Int) -> Bool { remotes[lane] != nil }

    /// The host of `lane`, as status lines and reports name it.
    func name(of lane: Int) -> String { settings.hosts[lane].name }

    /// When every host is out: the reason the jobs left cannot run.
    var noneLeft: String? { state.withLock { $0.roster.noneLeft } }

    private func connect(_ host: RemoteHost, lane: Int, connection: Int) {
        // Started under the lock: close() either sees this one in flight or stops it starting.
        let opening: Future<CommandResult>? = openings.withLock { openings in
            guard !openings.closing else { return nil }
            openings.tried[lane] = max(openings.tried[lane] ?? 0, connection + 1)
            let opening = host.openCommand(connection: connection).run()
            openings.inFlight.append(opening)
            return opening
        }
        opening?.onComplete { [self] outcome in
            let result = outcome.get()
            // The last line: a login shell's start-up files may print before it.
            let answer = String(decoding: result.stdout.bytes(), as: UTF8.self).split(whereSeparator: \.isNewline).last
            guard result.succeeded, let cpus = answer.flatMap({ Int($0.trimmingWhitespace()) }), cpus > 0 else {
                // A further connection that fails leaves the host running on the ones it has.
                if connection == 0 {
                    takeOut(lane, reason: Self.reason(result, answer: String(answer ?? "")))
                } else {
                    state.withLock { $0.roster.connectionOpened(lane, false) }
                }
                return
            }
            host.opened(connection: connection)
            guardMaster(host, connection: connection)
            state.withLock { state in
                if connection == 0 { state.roster.connected(lane, cpus: cpus) } else { state.roster.connectionOpened(lane, true) }
            }
            applyWidth(lane)
            jobsWaiting()
        }
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

    /// Asks the connection's master for its pid and has the guardian end it should futurerun die
    /// before closing it (the master runs in the background, out of the engine's sight).
    private func guardMaster(_ host: RemoteHost, connection: Int) {
        host.checkCommand(connection: connection).run().onSuccess { result in
            let text = String(decoding: result.stderr.bytes(), as: UTF8.self)
            if let pid = RemoteHost.masterProcess(inCheckOutput: text) { host.guardMaster(pid) }
        }
    }

    /// Why a connection could not be opened: ssh's last line on stderr, or how the ssh ended.
    private static func reason(_ result: CommandResult, answer: String) -> String {
        switch result.status {
        case .timedOut: return "no answer within 60s"
        case .exited(0): return "its CPU count could not be read: '\(Style.sanitize(String(answer.prefix(40))))'"
        default:
            let said = String(decoding: result.stderr.bytes(), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }.last { !$0.isEmpty }
            return said.map(Style.sanitize) ?? "ssh " + StatusLine.describe(result.status)
        }
    }

    // MARK: Jobs (any thread)

    /// The command that runs `line` on the host of `lane`, made from the command that would run it
    /// here, and the session of the host it takes (give it back with ``jobEnded(lane:session:)``).
    func command(for line: [UInt8], lane: Int, local: Command) -> (Command, session: Int) {
        guard let host = remotes[lane] else { return (local, 0) }
        let environment = local.environment.map { (name: $0.name, value: Optional($0.value)) } + settings.forwarded
        let payload = RemoteInvocation.payload(
            command: line, shell: String(decoding: local.argumentBytes[0], as: UTF8.self), environment: environment,
            workingDirectory: local.workingDirectory, grace: local.gracePeriod)
        let session = host.takeSession()
        var command = host.jobCommand(payload: payload, connection: session)
        command.timeout = local.timeout
        command.gracePeriod = local.gracePeriod
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
        host.checkCommand(connection: session).run().onComplete { [self] outcome in
            let alive = outcome.get().succeeded
            let (notice, deciders) = state.withLock { state in
                (
                    state.roster.checked(lane, alive: alive, reason: "its connection dropped"),
                    state.waiting.removeValue(forKey: lane) ?? []
                )
            }
            if let notice {
                announce(notice)
                host.forgetMasters()
            }
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
        pool.setWidth(state.withLock { $0.roster.width(of: lane) }, ofLane: lane)
    }

    // MARK: The end (main thread)

    /// Closes every connection, those still being opened too, and removes the control directory.
    /// Blocks until the masters have ended (each at most a few seconds).
    func close() {
        let (inFlight, tried) = openings.withLock { openings in
            openings.closing = true
            return (openings.inFlight, openings.tried)
        }
        // A login still under way is stopped; one that got as far as its master has its socket.
        for opening in inFlight { opening.cancel() }
        for opening in inFlight { _ = opening.value }
        let closing = tried.flatMap { lane, count in remotes[lane]!.close(connections: count) }
        for close in closing { _ = close.value }
        for case let host? in remotes { host.forgetMasters() }
        // The masters remove their sockets as they exit; one that did not leaves its socket here.
        Directory.remove(settings.controlDirectory)
    }

    /// Makes the private directory (0700) for the control sockets: in `$TMPDIR` when its path is
    /// short enough for a socket's (108 bytes with ssh's temporary suffix), else in /tmp.
    static func makeControlDirectory() -> String? {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.count < 48 && !$0.isEmpty ? $0 : nil } ?? "/tmp"
        var template = Array("\(base)/futurerun-ssh.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        return String(cString: made)
    }
}
