import FutureCore
import FutureProcess
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Hosts as values: how `-S` is read, what the roster decides, and the remote invocation run by a
/// real `/bin/sh` here (no ssh: the end-to-end suite has the real sshd).
@Suite struct Hosts {
    @Test func hostSpecsReadSlotsDestinationsAndThisMachine() throws {
        #expect(try HostSpec.parse("4/build1") == HostSpec(destination: "build1", slots: 4))
        #expect(try HostSpec.parse("ci@10.0.0.5") == HostSpec(destination: "ci@10.0.0.5", slots: nil))
        #expect(try HostSpec.parse(":").isLocal)
        #expect(try HostSpec.parse("2/:") == HostSpec(destination: ":", slots: 2))
        // A destination may hold a slash that is not a slot count.
        #expect(try HostSpec.parse("a/b") == HostSpec(destination: "a/b", slots: nil))
        for bad in ["", "0/h", "4/", "-oProxyCommand=x", "two words", "h\u{1}"] {
            #expect(throws: UsageError.self, "\(bad)") { try HostSpec.parse(bad) }
        }
        let hosts = try HostSpec.list(
            try HostSpec.parseList("h1,2/h2"), fileLines: ["# build farm", "", "  8/h3  # the big one", ":"])
        #expect(hosts.map(\.destination) == ["h1", "h2", "h3", ":"])
        #expect(hosts.map(\.slots) == [nil, 2, 8, nil])
        #expect(throws: UsageError.self) { try HostSpec.list(try HostSpec.parseList("h1,2/h1"), fileLines: []) }
    }

    @Test func aHostRunsNothingUntilConnectedThenItsSlotsAtMostTenPerConnection() {
        var roster = HostRoster(
            [
                HostSpec(destination: ":", slots: nil), HostSpec(destination: "a", slots: nil),
                HostSpec(destination: "b", slots: 24),
            ],
            jobs: .cpus, localWidth: 3)
        #expect((0..<3).map { roster.width(of: $0) } == [3, 0, 0])
        roster.connected(1, cpus: 8)
        #expect(roster.width(of: 1) == 8)
        let wants1 = roster.needsConnection(1, running: 8, waiting: 5)
        #expect(!wants1, "8 slots fit one connection")
        // 24 slots need three connections of eight job sessions (sshd's ten, less the connection's
        // own and one sshd may still be closing), opened as jobs wait, one at a time.
        roster.connected(2, cpus: 4)
        #expect(roster.width(of: 2) == 8)
        let wants2 = roster.needsConnection(2, running: 7, waiting: 5)
        #expect(!wants2, "a free session on the open connection")
        let wants3 = roster.needsConnection(2, running: 8, waiting: 0)
        #expect(!wants3, "no job waits")
        let wants4 = roster.needsConnection(2, running: 8, waiting: 5)
        #expect(wants4)
        let wants5 = roster.needsConnection(2, running: 8, waiting: 5)
        #expect(!wants5, "one opening at a time")
        roster.connectionOpened(2, true)
        #expect(roster.width(of: 2) == 16)
        let wants6 = roster.needsConnection(2, running: 16, waiting: 1)
        #expect(wants6)
        roster.connectionOpened(2, true)
        #expect(roster.width(of: 2) == 24)
        let wants7 = roster.needsConnection(2, running: 24, waiting: 100)
        #expect(!wants7, "its slots are all open")
    }

    @Test func aFailedFurtherConnectionLeavesTheHostOnTheOnesItHas() {
        var roster = HostRoster([HostSpec(destination: "a", slots: 1000)], jobs: .cpus, localWidth: 1)
        roster.connected(0, cpus: 2)
        let wants8 = roster.needsConnection(0, running: 8, waiting: 3)
        #expect(wants8)
        roster.connectionOpened(0, false)
        #expect(roster.width(of: 0) == 8)
        let wants9 = roster.needsConnection(0, running: 8, waiting: 3)
        #expect(!wants9)
    }

    @Test func jobsOptionGivesEachHostItsSlots() {
        #expect(HostRoster.slots(.count(4), cpus: 16) == 4)
        #expect(HostRoster.slots(.percentOfCPUs(50), cpus: 16) == 8)
        #expect(HostRoster.slots(.count(0), cpus: 16) == 16)
        #expect(Options.Jobs.count(0).width(cpus: 16) == .max)
        var roster = HostRoster([HostSpec(destination: "a", slots: nil)], jobs: .count(2), localWidth: 1)
        roster.connected(0, cpus: 64)
        #expect(roster.width(of: 0) == 2)
    }

    @Test func aLostConnectionIsCheckedOnceThenTheHostIsBackOrOut() {
        var roster = HostRoster(
            [HostSpec(destination: "a", slots: 2), HostSpec(destination: "b", slots: 2)], jobs: .cpus, localWidth: 1)
        roster.connected(0, cpus: 1)
        roster.connected(1, cpus: 1)
        let first = roster.lostConnection(0)
        let second = roster.lostConnection(0)
        #expect(first && !second, "a check under way answers for the next job too")
        #expect(roster.width(of: 0) == 0)
        let back = roster.checked(0, alive: true, reason: "")
        #expect(back == nil && roster.width(of: 0) == 2)
        let again = roster.lostConnection(0)
        let out = roster.checked(0, alive: false, reason: "its connection dropped")
        #expect(again && out == "host a is out (its connection dropped); its jobs go to the other hosts")
        #expect(roster.width(of: 0) == 0 && roster.isOut(0) && roster.noneLeft == nil)
        let last = roster.takeOut(1, reason: "gone")
        let twice = roster.takeOut(1, reason: "again")
        #expect(last == "host b is out (gone); no host is left to run jobs")
        #expect(twice == nil, "one notice per host")
        #expect(roster.noneLeft == "no host left to run it (a: its connection dropped; b: gone)")
    }

    @Test func sshCommandsSplitAsTheShellWould() throws {
        #expect(
            try OptionValue.commandWords("ssh -F 'my config' -o \"A=b c\" x\\ y", option: "--ssh")
                == ["ssh", "-F", "my config", "-o", "A=b c", "x y"])
        #expect(try OptionValue.commandWords(#"a "\$b\q" ''"#, option: "--ssh") == ["a", #"$b\q"#, ""])
        for bad in ["", "  ", "'open", "end\\"] {
            #expect(throws: UsageError.self, "\(bad)") { try OptionValue.commandWords(bad, option: "--ssh") }
        }
    }

    /// The launcher and a payload through a real `/bin/sh`, as sshd would run them (without the
    /// login shell, which the end-to-end tests cover).
    private func runRemotely(
        _ command: String, environment: [(name: String, value: [UInt8]?)] = [], directory: String? = nil
    )
        -> CommandResult
    {
        var invocation = Command(["/bin/sh", "-c", RemoteInvocation.launcher])
        invocation.input = HeldOpenInput(
            bytes: RemoteInvocation.payload(
                command: Array(command.utf8), shell: "/bin/sh", environment: environment,
                workingDirectory: directory.map { Array($0.utf8) },
                grace: .seconds(1)))
        invocation.timeout = .seconds(30)
        return invocation.run().value
    }

    @Test func theLauncherIsOneWordEveryLoginShellPassesThrough() {
        let quoted = RemoteInvocation.launcher.split(separator: "'")
        #expect(quoted.count == 3, "one single-quoted word")
        #expect(!quoted[1].contains { "\\!\n".contains($0) })
    }

    @Test func aPayloadRunsTheCommandUnchangedWithItsEnvironmentDirectoryAndStatus() {
        let hostile = "printf '%s|' \"a'b\" '$HOME' \\\\ \"$(printf 'x\\ny')\"; echo; exit 7"
        let result = runRemotely(hostile)
        #expect(result.status == .exited(7))
        #expect(String(decoding: result.stdout.bytes(), as: UTF8.self) == "a'b|$HOME|\\|x\ny|\n")
        let setting = runRemotely(
            "pwd; echo \"$A|${B-unset}\"; printf %s \"$C\" | od -An -tx1",
            environment: [("A", Array("it's \"1\"\nand 2".utf8)), ("B", nil), ("C", [0xFF, 0x41])], directory: "/tmp")
        // C's value is no UTF-8: its bytes arrive as they are.
        #expect(String(decoding: setting.stdout.bytes(), as: UTF8.self) == "/tmp\nit's \"1\"\nand 2|unset\n ff 41\n")
        // Nothing more on stdout or stderr than the job's own.
        #expect(result.stderr.bytes().isEmpty && setting.stderr.bytes().isEmpty)
    }
}
