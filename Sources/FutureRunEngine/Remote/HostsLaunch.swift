import FutureProcess
import FutureRunModel
import Glibc

/// Attempts on several machines (`-S`, `--hosts-file`, ``HostLauncher``).
package enum HostsLaunch: LaunchKind {
    package static func isAsked(by options: Options) -> Bool { !options.hosts.isEmpty || options.hostsFile != nil }

    /// Hosts take no rule that watches this machine; a remote job's stdin carries its command
    /// (``RemoteHost``), so no block of `--pipe` can go there.
    package static func check(_ options: Options) throws(UsageError) {
        guard isAsked(by: options) else { return }
        if options.memoryFree != nil { throw .conflictingOptions("--memfree", "-S/--hosts-file") }
        if options.memorySuspend != nil { throw .conflictingOptions("--memsuspend", "-S/--hosts-file") }
        if options.load != nil { throw .conflictingOptions("--load", "-S/--hosts-file") }
        if options.pipe != nil { throw .conflictingOptions("--pipe", "-S/--hosts-file (not supported yet)") }
    }

    /// Reads `--hosts-file`, checks `--ssh`'s program and reads `--env`'s values.
    package static func prepare(_ options: Options, environment: [String: String]) throws(UsageError) -> any LaunchSite {
        HostsSite(
            hosts: try hosts(options), ssh: try sshCommand(options), forwarded: SystemFacts.values(of: options.forwardedVariables)
        )
    }

    /// `-S` and `--hosts-file`, as one list.
    private static func hosts(_ options: Options) throws(UsageError) -> [HostSpec] {
        var lines: [String] = []
        if let file = options.hostsFile {
            guard let text = TextFile.read(file) else {
                throw .unreadableFile(path: file, reason: String(cString: strerror(errno)))
            }
            lines = text.split(whereSeparator: \.isNewline).map(String.init)
        }
        let hosts = try HostSpec.list(options.hosts, fileLines: lines)
        if let file = options.hostsFile, hosts.isEmpty {
            throw .invalidValue(option: "--hosts-file", value: file, expected: "a file with a host on a line, as in 4/build1")
        }
        return hosts
    }

    /// `--ssh` (default `ssh`), its program checked now.
    private static func sshCommand(_ options: Options) throws(UsageError) -> [String] {
        let words = options.ssh ?? ["ssh"]
        if case .failure(let error) = Command.locateExecutable(words[0]) {
            let reason = String(cString: strerror(error.errno))
            throw .invalidValue(
                option: "--ssh", value: words.joined(separator: " "),
                expected: "a command that can be run (\(words[0]): \(reason))")
        }
        return words
    }
}

/// The hosts, read: each a lane of the pool; the connections' control directory once opened.
package struct HostsSite: LaunchSite {
    package let hosts: [HostSpec]
    /// `--ssh` as words.
    package let ssh: [String]
    /// `--env NAME`: each variable's value here (`nil`: unset here, so unset there too).
    let forwarded: [(name: String, value: [UInt8]?)]
    /// The private directory for the connections' control sockets, once opened.
    var controlDirectory: String?

    package init(hosts: [HostSpec], ssh: [String] = ["ssh"], forwarded: [(name: String, value: [UInt8]?)] = []) {
        (self.hosts, self.ssh, self.forwarded) = (hosts, ssh, forwarded)
    }

    package var traits: LaunchTraits {
        LaunchTraits(
            runsHere: false, someRunHere: hosts.contains { $0.isLocal }, requeues: true, widthGrows: true,
            capsCommandsHere: true)
    }

    /// Makes the control directory, for a real run (the run's end removes it).
    package func open(dryRun: Bool) throws(UsageError) -> any LaunchSite {
        guard !dryRun else { return self }
        guard let directory = HostFleet.makeControlDirectory() else {
            throw .cannotWrite(path: "$TMPDIR/futurerun-ssh.*", reason: String(cString: strerror(errno)))
        }
        var opened = self
        opened.controlDirectory = directory
        return opened
    }

    package func makeLauncher(_ run: LaunchRun) -> any Launcher {
        HostLauncher(
            HostFleet.Settings(
                hosts: hosts, ssh: ssh, forwarded: forwarded, jobs: run.options.jobs, localWidth: run.width,
                runningLimit: run.runningLimit),
            // Opened for every run over hosts but a dry run, which makes no launcher.
            controlDirectory: controlDirectory ?? "", engine: run.engine, notices: run.notices)
    }
}
