import FutureCore
import FutureProcess

/// One remote host's OpenSSH connections: the commands that open, check and close them, and the
/// command that runs a job over one of them. A connection is an OpenSSH multiplexing master
/// (`ControlMaster`): opening it logs in once, and every job after that is a session on it, with no
/// handshake of its own. Its control socket lives in futurerun's private directory.
///
/// Any thread: the commands are values; the session counts are behind a lock.
final class RemoteHost: Sendable {
    let spec: HostSpec
    /// The `--ssh` words (default `ssh`).
    private let ssh: [String]
    private let controlDirectory: String
    /// This host's place among the run's hosts (its pool lane).
    private let index: Int
    /// Sessions running on each open connection.
    private let sessions = Locked<[Int]>([])
    /// The guardian's entries of the connections' master processes; once `forgotten`, no more
    /// are made (a master's pid must not stay in the guardian's table after it has ended).
    private let guarded = Locked<(entries: [Int32], forgotten: Bool)>(([], false))

    init(_ spec: HostSpec, index: Int, ssh: [String], controlDirectory: String) {
        self.spec = spec
        self.index = index
        self.ssh = ssh
        self.controlDirectory = controlDirectory
    }

    /// Seconds between probes of a silent connection, and how many go unanswered before it is
    /// given up: 45 s, long enough for a busy host, short enough to move its jobs in time.
    static let keepalive = (interval: 15, count: 3)

    private func controlPath(_ connection: Int) -> String { "\(controlDirectory)/\(index).\(connection)" }

    private func ssh(_ options: [String], connection: Int, _ rest: [String]) -> Command {
        Command(ssh + options + ["-o", "ControlPath=" + controlPath(connection)] + rest)
    }

    /// Logs in and leaves the connection open in the background (`ControlPersist`), answering with
    /// the host's CPU count on stdout. Exit 0 once the connection is open. `BatchMode`: nothing may
    /// prompt in the middle of a run (a job's ssh, should it connect on its own, neither).
    /// Keepalive: a host that goes silent without closing (hung, or its network gone) fails the
    /// master after ``keepalive`` unanswered probes, and is then taken out like a dropped one. An
    /// `-o ServerAliveInterval=N` in `--ssh` comes first and wins, as ssh takes the first value.
    func openCommand(connection: Int) -> Command {
        var command = ssh(
            [
                "-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-o", "BatchMode=yes",
                "-o", "ServerAliveInterval=\(Self.keepalive.interval)", "-o", "ServerAliveCountMax=\(Self.keepalive.count)", "-T",
            ], connection: connection,
            [spec.destination, RemoteInvocation.cpuQuery])
        // ssh's own connect timeout is the system's (minutes) unless the user's config sets one.
        command.timeout = .seconds(60)
        command.gracePeriod = .seconds(1)
        return command
    }

    /// Exit 0 while the connection's master runs, saying its pid on stderr (`Master running (pid=N)`).
    func checkCommand(connection: Int) -> Command {
        var command = ssh([], connection: connection, ["-O", "check", spec.destination])
        command.timeout = .seconds(10)
        command.gracePeriod = .seconds(1)
        return command
    }

    /// Ends the connection's master (and with it any session still on it).
    func closeCommand(connection: Int) -> Command {
        var command = ssh([], connection: connection, ["-O", "exit", spec.destination])
        command.timeout = .seconds(5)
        command.gracePeriod = .seconds(1)
        return command
    }

    /// The command that runs `payload` (``RemoteInvocation/payload(command:shell:environment:workingDirectory:grace:)``)
    /// in a session on `connection`.
    func jobCommand(payload: [UInt8], connection: Int) -> Command {
        var command = ssh(
            ["-o", "ControlMaster=no", "-o", "BatchMode=yes", "-T"], connection: connection,
            [spec.destination, RemoteInvocation.launcher])
        command.input = .bytesThenHeldOpen(payload)
        return command
    }

    /// Connection `connection` is open: jobs may use it.
    func opened(connection: Int) {
        sessions.withLock { counts in
            while counts.count <= connection { counts.append(0) }
        }
    }

    /// Hands a connection's master process (its pid, from the check) to the guardian, which ends it
    /// should futurerun be killed before closing it. Not after ``forgetMasters()``.
    func guardMaster(_ pid: Int32) {
        guarded.withLock { guarded in
            if !guarded.forgotten, let entry = ProcessEngine.shared.guardGroup(pid) { guarded.entries.append(entry) }
        }
    }

    /// A session for a job: the open connection carrying the fewest.
    func takeSession() -> Int {
        sessions.withLock { counts in
            guard let least = counts.indices.min(by: { counts[$0] < counts[$1] }) else { return 0 }
            counts[least] += 1
            return least
        }
    }

    func giveBack(session connection: Int) {
        sessions.withLock { counts in
            if counts.indices.contains(connection) { counts[connection] -= 1 }
        }
    }

    /// Starts closing connections `0..<connections` (those tried; one that never opened answers at
    /// once); the futures resolve once each is closed (at most its timeout). Never blocks.
    func close(connections: Int) -> [Future<CommandResult>] {
        (0..<connections).map { closeCommand(connection: $0).run() }
    }

    /// The connections are closed, or gone: the guardian has no master of this host left to end.
    func forgetMasters() {
        let entries = guarded.withLock { guarded in
            defer { guarded = ([], true) }
            return guarded.entries
        }
        for entry in entries { ProcessEngine.shared.stopGuarding(entry) }
    }

    /// The pid in `Master running (pid=N)`.
    static func masterProcess(inCheckOutput text: String) -> Int32? {
        guard let start = text.firstRange(of: "(pid=")?.upperBound else { return nil }
        return Int32(text[start...].prefix { $0.isNumber })
    }
}
