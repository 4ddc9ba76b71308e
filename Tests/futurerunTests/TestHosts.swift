import FutureCore
import FutureProcess
import Glibc
import TestSupport

/// Two "remote hosts" on this machine: a private sshd (Debian's openssh-server) on 127.0.0.2 and
/// another on 127.0.0.3, with host and user keys made in a scratch directory, and an ssh config
/// that futurerun is given with `--ssh 'ssh -F FILE'`. Nothing touches the machine's own sshd, its
/// `~/.ssh`, or any address outside 127.0.0.0/8. Both sshds stop when this is released.
///
/// The config's aliases: `h2` and `h3` (root's own login shell), `h2-zsh`, `h2-fish` and `h2-csh`
/// (the same sshd on other ports, where a `ForceCommand` runs the command as that login shell
/// would), `h2-slow` (whose commands start 2 s after the login), and `dead` (a loopback port where
/// nothing listens).
final class TestHosts {
    let scratch = Scratch()
    /// `--ssh` for futurerun.
    var ssh: String { "ssh -F \(config)" }
    var config: String { scratch.file("ssh_config") }
    /// The first of this instance's ports; each sshd listens on `port` (and 127.0.0.2 on two more).
    let port: Int
    private var servers: [String: Future<CommandResult>] = [:]

    static let sshd = "/usr/sbin/sshd"
    static var isAvailable: Bool { access(sshd, X_OK) == 0 && access("/usr/bin/ssh", X_OK) == 0 }

    /// `nil` when the sshds could not be started (the reason is printed).
    init?() {
        port = Int.random(in: 20000...50000)
        // sshd refuses to start without its privilege separation directory (Debian makes it at boot
        // when its own sshd is enabled; an empty directory, shared with nothing).
        mkdir("/run/sshd", 0o755)
        let keys = Command.shell(
            "cd \(quoted(scratch.path)) && ssh-keygen -q -t ed25519 -N '' -f host_key && ssh-keygen -q -t ed25519 -N '' -f user_key"
                + " && cp user_key.pub authorized_keys"
        ).run().value
        guard keys.succeeded, let hostKey = scratch.read("host_key.pub") else {
            print("TestHosts: ssh-keygen failed: \(String(decoding: keys.stderr.bytes(), as: UTF8.self))")
            return nil
        }
        let known = (0...4).map { "[127.0.0.2]:\(port + $0)" } + ["[127.0.0.3]:\(port)"]
        scratch.write("known_hosts", known.map { "\($0) \(hostKey)" }.joined())
        scratch.write("ssh_config", clientConfig)
        for (name, address) in [("h2", "127.0.0.2"), ("h3", "127.0.0.3")] {
            scratch.write("sshd_\(name)", serverConfig(address: address, extraPorts: name == "h2"))
            let server = Command([Self.sshd, "-D", "-f", scratch.file("sshd_\(name)"), "-E", scratch.file("log_\(name)")])
            servers[name] = server.run()
            guard eventually(10, { (scratch.read("log_\(name)") ?? "").contains("Server listening") }) else {
                print("TestHosts: sshd \(name) did not start: \(scratch.read("log_\(name)") ?? "no log")")
                return nil
            }
        }
    }

    deinit {
        for name in servers.keys { killTree(of: serverProcess(name)) }
        for server in servers.values { server.cancel() }
        for server in servers.values { _ = server.value }
    }

    private func serverConfig(address: String, extraPorts: Bool) -> String {
        var ports = ["ListenAddress \(address):\(port)"]
        var matches: [String] = []
        if extraPorts {
            ports += (1...4).map { "ListenAddress \(address):\(port + $0)" }
            // ForceCommand runs through root's login shell, which hands the original command, as
            // it came, to the shell under test: that shell parses it as a login shell would.
            matches = [
                "Match LocalPort \(port + 1)", "  ForceCommand exec /usr/bin/zsh -c \"$SSH_ORIGINAL_COMMAND\"",
                "Match LocalPort \(port + 2)", "  ForceCommand exec /usr/bin/fish -c \"$SSH_ORIGINAL_COMMAND\"",
                "Match LocalPort \(port + 3)", "  ForceCommand exec /usr/bin/tcsh -c \"$SSH_ORIGINAL_COMMAND\"",
                "Match LocalPort \(port + 4)", "  ForceCommand sleep 2; exec /bin/bash -c \"$SSH_ORIGINAL_COMMAND\"",
            ]
        }
        return
            (ports + [
                "HostKey \(scratch.file("host_key"))", "AuthorizedKeysFile \(scratch.file("authorized_keys"))",
                "PidFile \(scratch.file("sshd.pid." + address))", "StrictModes no", "UsePAM no",
                "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password",
                "LogLevel VERBOSE",
            ] + matches).joined(separator: "\n") + "\n"
    }

    private var clientConfig: String {
        // Port 1 of 127.0.0.1: nothing listens there.
        """
        Host h2
          HostName 127.0.0.2
        Host h2-zsh
          HostName 127.0.0.2
          Port \(port + 1)
        Host h2-fish
          HostName 127.0.0.2
          Port \(port + 2)
        Host h2-csh
          HostName 127.0.0.2
          Port \(port + 3)
        Host h2-slow
          HostName 127.0.0.2
          Port \(port + 4)
        Host h3
          HostName 127.0.0.3
        Host dead
          HostName 127.0.0.1
          Port 1
        Host *
          Port \(port)
          User \(String(cString: getpwuid(getuid())!.pointee.pw_name))
          IdentityFile \(scratch.file("user_key"))
          IdentitiesOnly yes
          UserKnownHostsFile \(scratch.file("known_hosts"))
          GlobalKnownHostsFile /dev/null
          StrictHostKeyChecking yes
          BatchMode yes
          LogLevel ERROR

        """
    }

    /// The listening sshd of `name` (`h2`, `h3`).
    private func serverProcess(_ name: String) -> pid_t {
        let address = name == "h2" ? "127.0.0.2" : "127.0.0.3"
        return pid_t((scratch.read("sshd.pid." + address) ?? "").filter(\.isNumber)) ?? 0
    }

    /// Logins `name`'s sshd accepted (each is one connection), once every connection has ended (its
    /// last line is written as it ends, maybe after futurerun's exit). sshd ends log lines with
    /// CRLF, one Character in Swift: lines are split at any newline.
    func logins(_ name: String) -> Int {
        let count = { (text: String) in
            (self.scratch.read("log_\(name)") ?? "").split(whereSeparator: \.isNewline).filter { $0.contains(text) }.count
        }
        _ = eventually(10) { count("Accepted publickey") == count("Disconnected from user") }
        return count("Accepted publickey")
    }

    /// The host goes silent without closing anything: its sshd, connections and sessions are
    /// stopped (SIGSTOP), as a machine that hangs or a network that drops packets. ``drop(_:)``
    /// ends them.
    func freeze(_ name: String) {
        signalTree(of: serverProcess(name), SIGSTOP)
    }

    /// The host drops: its sshd and every connection and session it has are killed at once
    /// (SIGKILL), as if the machine went away.
    func drop(_ name: String) {
        // The tree first: once the listener is gone its connections' processes belong to init.
        signalTree(of: serverProcess(name), SIGCONT)
        killTree(of: serverProcess(name))
        servers[name]?.cancel()
    }
}

/// SIGKILLs `root` and every process descended from it (found through /proc).
func killTree(of root: pid_t) { signalTree(of: root, SIGKILL) }

/// Sends `signal` to `root` and every process descended from it (found through /proc).
func signalTree(of root: pid_t, _ signal: Int32) {
    guard root > 0 else { return }
    var tree: Set<pid_t> = [root]
    var grew = true
    while grew {
        grew = false
        for (pid, parent) in processParents() where tree.contains(parent) && !tree.contains(pid) {
            tree.insert(pid)
            grew = true
        }
    }
    // sshd first: a session's sshd that outlived its shell for a moment would report the shell's
    // death to the client as an exit status, where a machine that goes away reports nothing.
    let sshd = tree.filter { (readText("/proc/\($0)/comm") ?? "").hasPrefix("sshd") }
    for pid in sshd { kill(pid, signal) }
    for pid in tree.subtracting(sshd) { kill(pid, signal) }
}

/// Every process's parent, from /proc/PID/stat.
private func processParents() -> [(pid_t, pid_t)] {
    guard let directory = opendir("/proc") else { return [] }
    defer { closedir(directory) }
    var pairs: [(pid_t, pid_t)] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let pid = pid_t(name), let stat = readText("/proc/\(name)/stat"),
            let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, let parent = pid_t(fields[1]) { pairs.append((pid, parent)) }
    }
    return pairs
}

/// Whether process `pid` is alive (a zombie counts as gone).
func isAlive(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0, let stat = readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
    return !stat[stat.index(after: close)...].hasPrefix(" Z")
}
