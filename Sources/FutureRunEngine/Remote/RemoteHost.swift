import FutureCore
import FutureProcess
import FutureRunModel

/// One remote host's OpenSSH connections: the commands that open, check and close them, and the
/// command that runs a job over one of them. A connection is an OpenSSH multiplexing master
/// (`ControlMaster`): opening it logs in once, and every job after that is a session on it, with no
/// handshake of its own. Its control socket lives in futurerun's private directory.
///
/// Any thread: the commands are values; the session counts are behind a lock.
package final class RemoteHost: Sendable {
    package let spec: HostSpec
    /// The `--ssh` words (default `ssh`).
    private let ssh: [String]
    private let controlDirectory: String
    /// This host's place among the run's hosts (its pool lane).
    private let index: Int
    /// Sessions running on each open connection.
    private let sessions = Locked<[Int]>([])

    package init(_ spec: HostSpec, index: Int, ssh: [String], controlDirectory: String) {
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

    /// Logs in and keeps the connection (the OpenSSH master) running in the foreground, as one of
    /// the engine's children, for as long as its own session runs: ``RemoteInvocation/connectionSession``,
    /// which says the host's CPU count and then reads the standard input futurerun holds open.
    /// So the master is guarded from its start like any child (a SIGKILL of futurerun ends its
    /// process group), and it cannot outlive futurerun (its session's input ends with futurerun).
    /// `BatchMode`: nothing may prompt in the middle of a run. Keepalive: a host that goes silent
    /// without closing (hung, or its network gone) fails the master after ``keepalive`` unanswered
    /// probes, and is taken out like a dropped one. An `-o ServerAliveInterval=N` in `--ssh` comes
    /// first and wins, as ssh takes the first value.
    func openCommand(connection: Int) -> Command {
        var command = ssh(
            [
                "-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-o", "BatchMode=yes",
                "-o", "ServerAliveInterval=\(Self.keepalive.interval)", "-o", "ServerAliveCountMax=\(Self.keepalive.count)", "-T",
            ], connection: connection,
            [spec.destination, RemoteInvocation.connectionSession])
        command.input = HeldOpenInput(bytes: [])
        command.gracePeriod = .seconds(1)
        return command
    }

    /// How long a login may take before the host is given up.
    static let loginLimit: Duration = .seconds(60)

    /// Exit 0 while the connection's master runs, saying its pid on stderr (`Master running (pid=N)`).
    func checkCommand(connection: Int) -> Command {
        var command = ssh([], connection: connection, ["-O", "check", spec.destination])
        command.timeout = .seconds(10)
        command.gracePeriod = .seconds(1)
        return command
    }

    /// The command that runs `payload` (``RemoteInvocation/payload(command:shell:environment:workingDirectory:grace:)``)
    /// in a session on `connection`.
    func jobCommand(payload: [UInt8], connection: Int) -> Command {
        var command = ssh(
            ["-o", "ControlMaster=no", "-o", "BatchMode=yes", "-T"], connection: connection,
            [spec.destination, RemoteInvocation.launcher])
        command.input = HeldOpenInput(bytes: payload)
        return command
    }

    /// Connection `connection` is open: jobs may use it.
    package func opened(connection: Int) {
        sessions.withLock { counts in
            while counts.count <= connection { counts.append(0) }
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
}
