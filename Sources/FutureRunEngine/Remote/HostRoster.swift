import FutureRunModel

/// The hosts of a run and how many jobs each may run now: a policy, decided as plain values
/// (``HostFleet`` does the connecting and checking, and applies what this decides).
///
/// A remote host runs nothing until it has connected; then as many jobs as its slots, at most
/// ``sessionsPerConnection`` on each of its connections (sshd's default MaxSessions of 10, less the
/// connection's own session, which lasts the run: ``RemoteInvocation/connectionSession``, and one
/// that sshd may still be closing after the job's `ssh` has exited). A further
/// connection is opened only when jobs wait that the host's open connections cannot take, one at a
/// time: `-S 1000/host` with three jobs logs in once. A job on it
/// whose `ssh` exits with 255 may have lost the connection or may have exited 255 itself: the host
/// takes no new job until a check tells which. A host that cannot be reached, or whose connection
/// is gone, is out for the rest of the run. This machine (`:`) is always up.
package struct HostRoster: Sendable {
    /// Jobs one connection may carry at once: sshd's default MaxSessions (10), less the
    /// connection's own session, less one for a session sshd is still closing: a job's `ssh` exits
    /// when the exit status comes, a moment before sshd frees the session, and the next job's
    /// session must not find it taken. (Past the limit, sshd refuses the session, and ssh would
    /// log in anew.)
    static let sessionsPerConnection = 8

    package enum State: Sendable, Equatable {
        case connecting
        case up
        /// A job lost its connection, maybe: takes nothing until the check answers.
        case checking
        case out(reason: String)
    }

    package struct Host: Sendable, Equatable {
        package let spec: HostSpec
        package var state: State
        /// Known once connected: `N/`, else by `-j` and the host's CPUs (``slots(_:cpus:)``).
        package var slots: Int
        /// Connections open (this machine: none needed).
        package var connections: Int
        /// A further connection is being opened.
        package var opening = false
        /// A further connection failed: the host runs on the ones it has.
        var noMoreConnections = false
    }

    package private(set) var hosts: [Host]
    /// `-j`: the slots of a host without `N/`.
    private let jobs: Options.Jobs

    /// - Parameters:
    ///   - jobs: `-j`, for each remote host without `N/`.
    ///   - localWidth: this machine's width in a local run (`-j`, fitted to its limits), for `:`
    ///     without `N/`.
    package init(_ specs: [HostSpec], jobs: Options.Jobs, localWidth: Int) {
        self.jobs = jobs
        hosts = specs.map { spec in
            spec.isLocal
                ? Host(spec: spec, state: .up, slots: spec.slots ?? localWidth, connections: 0)
                : Host(spec: spec, state: .connecting, slots: 0, connections: 0)
        }
    }

    /// A remote host's slots by `-j` and its CPUs, as on this machine, but for `-j 0`: its CPUs,
    /// since its ssh sessions are not free.
    package static func slots(_ jobs: Options.Jobs, cpus: Int) -> Int {
        jobs == .count(0) ? cpus : jobs.width(cpus: cpus)
    }

    /// How many of its jobs host `index` may run now.
    package func width(of index: Int) -> Int {
        let host = hosts[index]
        guard host.state == .up else { return 0 }
        if host.spec.isLocal { return host.slots }
        return min(host.slots, host.connections * Self.sessionsPerConnection)
    }

    /// Connections host `index` needs for all of its slots.
    private func connectionsWanted(by index: Int) -> Int {
        let slots = hosts[index].slots
        return (slots + Self.sessionsPerConnection - 1) / Self.sessionsPerConnection
    }

    /// Host `index` connected and reported `cpus` CPUs.
    mutating func connected(_ index: Int, cpus: Int) {
        guard hosts[index].state == .connecting else { return }
        hosts[index].state = .up
        hosts[index].slots = max(1, hosts[index].spec.slots ?? Self.slots(jobs, cpus: cpus))
        hosts[index].connections = 1
    }

    /// Whether host `index`, running `running` jobs while `waiting` jobs wait for a place, should
    /// open one more connection now: it is up, every open connection is full, its slots allow
    /// another, and none is being opened or has failed. If so, it is being opened from now on, as
    /// connection number ``Host/connections``.
    mutating func needsConnection(_ index: Int, running: Int, waiting: Int) -> Bool {
        let host = hosts[index]
        guard host.state == .up, !host.spec.isLocal, !host.opening, !host.noMoreConnections, waiting > 0,
            running >= width(of: index), host.connections < connectionsWanted(by: index)
        else { return false }
        hosts[index].opening = true
        return true
    }

    /// The connection being opened for host `index` is open (`true`) or could not be (`false`).
    mutating func connectionOpened(_ index: Int, _ opened: Bool) {
        hosts[index].opening = false
        if opened { hosts[index].connections += 1 } else { hosts[index].noMoreConnections = true }
    }

    /// Host `index` is out; returns the one notice that says so (`nil` if it was out already).
    mutating func takeOut(_ index: Int, reason: String) -> String? {
        if case .out = hosts[index].state { return nil }
        hosts[index].state = .out(reason: reason)
        let name = hosts[index].spec.name
        let next =
            hosts.contains { if case .out = $0.state { false } else { true } }
            ? "its jobs go to the other hosts" : "no host is left to run jobs"
        return "host \(name) is out (\(reason)); \(next)"
    }

    /// A job on host `index` ended with ssh's 255. Returns whether to check the host now (it is
    /// then ``State/checking``; a check already under way answers for this job too).
    mutating func lostConnection(_ index: Int) -> Bool {
        guard hosts[index].state == .up else { return false }
        hosts[index].state = .checking
        return true
    }

    /// The check of host `index` answered: its connection is alive (the job's 255 was its own), or
    /// gone. Returns the notice when the host is out.
    package mutating func checked(_ index: Int, alive: Bool, reason: String) -> String? {
        guard hosts[index].state == .checking else { return nil }
        if alive {
            hosts[index].state = .up
            return nil
        }
        return takeOut(index, reason: reason)
    }

    /// Whether host `index` is out.
    func isOut(_ index: Int) -> Bool {
        if case .out = hosts[index].state { return true }
        return false
    }

    /// When every host is out: why, naming each, for the jobs that cannot run.
    var noneLeft: String? {
        var reasons: [String] = []
        for host in hosts {
            guard case .out(let reason) = host.state else { return nil }
            reasons.append("\(host.spec.name): \(reason)")
        }
        return "no host left to run it (" + reasons.joined(separator: "; ") + ")"
    }
}
