import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Runs over other machines (`-S`), against two private sshds on 127.0.0.2 and 127.0.0.3
/// (``TestHosts``). The "remote" processes run on this machine, so a test can see them end.
/// Serialized: each remote job logs in through root's login shell, whose start-up is slow here.
@Suite(.serialized) struct RemoteHosts {
    /// The hosts, or a failed requirement naming why (never a silent pass).
    private func startHosts() throws -> TestHosts {
        try #require(TestHosts.isAvailable, "openssh-server and openssh-client are needed (.ci/run installs them)")
        return try #require(TestHosts(), "the private sshds did not start")
    }

    /// futurerun over `hosts` with its control sockets under `scratch` (TMPDIR), so a test can
    /// see that nothing of them is left.
    private func remote(_ hosts: TestHosts, _ scratch: Scratch, _ arguments: [String], shellPrefix: String = "") -> Outcome {
        futurerun(["--ssh", hosts.ssh] + arguments, environment: [("TMPDIR", scratch.path)], shellPrefix: shellPrefix)
    }

    /// No ssh master of this run is left, nor its control directory.
    private func expectConnectionsClosed(_ scratch: Scratch) {
        #expect(eventually(5) { !processAlive(scratch.path + "/futurerun-ssh") }, "a connection of the run was left open")
        // After a SIGKILL, the guardian removes it once its grace period is over.
        #expect(
            eventually(5) { !scratch.entries().contains { $0.hasPrefix("futurerun-ssh") } },
            "the control directory was left behind")
    }

    @Test func jobsRunOnBothHostsPrintInInputOrderAndNameTheirHost() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let run = remote(
            hosts, scratch,
            [
                "-S", "1/h2,1/h3", "--joblog", scratch.file("log"), "--json", scratch.file("json"), "--timeline",
                scratch.file("run.svg"), "--each",
                "sleep 0.3; set -- $SSH_CONNECTION; echo {} $3", "1", "2", "3", "4",
            ])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(lines.map { $0.first.map(String.init) } == ["1", "2", "3", "4"])
        // SSH_CONNECTION's third field is the server's address.
        let address = { (job: Int) in lines[job - 1].count == 2 ? String(lines[job - 1][1]) : "" }
        // Each job's host, as the joblog, the JSON and the status line name it, is where it ran.
        let log = (scratch.read("log") ?? "").split(separator: "\n").dropFirst().map { $0.split(separator: "\t") }
        let json = (scratch.read("json") ?? "").split(separator: "\n")
        #expect(log.count == 4 && json.count == 4)
        var used: Set<String> = []
        for fields in log where fields.count > 2 {
            let job = Int(fields[0])!
            let host = String(fields[1])
            used.insert(host)
            #expect(address(job) == (host == "h2" ? "127.0.0.2" : "127.0.0.3"), "job \(job) printed \(lines[job - 1])")
            #expect(json.contains { $0.contains("\"number\":\(job),") && $0.contains("\"host\":\"\(host)\"") })
            #expect(run.errLines.contains { $0.contains("[\(job)/4]") && $0.contains("on \(host)") })
        }
        #expect(used == ["h2", "h3"], "both hosts ran jobs")
        // The timeline has a row per host and slot (slots are the run's, `{%}`, as in the status).
        let svg = scratch.read("run.svg") ?? ""
        #expect(svg.contains(">h2 · ") && svg.contains(">h3 · ") && !svg.contains(">slot "))
        // One login per host: every job was a session on the host's one connection.
        #expect(hosts.logins("h2") == 1 && hosts.logins("h3") == 1)
        expectConnectionsClosed(scratch)
    }

    @Test func jobsOnEachHostRunSideBySideUpToItsSlots() throws {
        let hosts = try startHosts()
        let cpus = Int(String(decoding: Command.shell("nproc").run().value.stdout.bytes(), as: UTF8.self).filter(\.isNumber))!
        // Slots: the host's CPUs when nothing says, -j per host, N/ for one host. One job more
        // than the slots: it must wait. (The sleep outlasts the remote login shells' start-up.)
        for (arguments, expected) in [(["-S", "h2"], cpus), (["-j1", "-S", "h2"], 1), (["-j1", "-S", "3/h2"], 3)] {
            let scratch = Scratch()
            let job = "date +%s%N > \(quoted(scratch.path))/start.{}; sleep 1.2; date +%s%N > \(quoted(scratch.path))/end.{}"
            let run = remote(hosts, scratch, arguments + ["--each", job] + (1...expected + 1).map(String.init))
            #expect(run.status == 0, "\(run.err)")
            #expect(maximumOverlap(scratch, jobs: expected + 1) == expected, "\(arguments)")
        }
    }

    /// The most jobs running at one moment, from the start and end stamps they wrote.
    private func maximumOverlap(_ scratch: Scratch, jobs: Int) -> Int {
        let stamp = { (name: String) in Int((scratch.read(name) ?? "").filter(\.isNumber)) ?? 0 }
        let intervals = (1...jobs).map { (stamp("start.\($0)"), stamp("end.\($0)")) }
        return intervals.map { interval in intervals.filter { $0.0 <= interval.0 && interval.0 < $0.1 }.count }.max() ?? 0
    }

    @Test func moreSlotsThanSshdAllowsSessionsOnAConnectionOpenAnotherConnection() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        // sshd's MaxSessions is 10, one each connection's own, one kept for closing: twelve at once
        // on one host need two connections.
        let job = "date +%s%N > \(quoted(scratch.path))/start.{}; sleep 3; date +%s%N > \(quoted(scratch.path))/end.{}"
        let run = remote(hosts, scratch, ["--sshlogin", "12/h2", "--each", job] + (1...12).map(String.init))
        #expect(run.status == 0, "\(run.err)")
        #expect(maximumOverlap(scratch, jobs: 12) == 12)
        #expect(hosts.logins("h2") == 2)
        expectConnectionsClosed(scratch)
    }

    @Test func hostsFileAddsHostsWithCommentsAndBlankLines() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        scratch.write("hosts", "# the farm\n\n1/h2   # small\n1/h3\n")
        let run = remote(
            hosts, scratch,
            ["--hosts-file", scratch.file("hosts"), "--joblog", scratch.file("log"), "--each", "sleep 0.5; echo {}", "1", "2"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "1\n2\n")
        let logHosts = (scratch.read("log") ?? "").split(separator: "\n").dropFirst().map { String($0.split(separator: "\t")[1]) }
        #expect(logHosts.count == 2 && logHosts.allSatisfy { ["h2", "h3"].contains($0) })
        // Both hosts of the file were connected to (which ran which job is up to their timing).
        #expect(hosts.logins("h2") == 1 && hosts.logins("h3") == 1)
    }

    @Test(arguments: ["h2", "h2-zsh", "h2-fish", "h2-csh"])
    func commandsReachTheRemoteShellByteForByteWhateverTheLoginShell(host: String) throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        // The login shell under test is the one that reads ssh's command line: its own variable says so.
        let variable = ["h2": "BASH_VERSION", "h2-zsh": "ZSH_VERSION", "h2-fish": "FISH_VERSION", "h2-csh": "tcsh"][host]!
        let shell = Command(["ssh", "-F", hosts.config, host, "echo $\(variable)"]).run().value
        try #require(shell.succeeded && shell.stdout.bytes().count > 1, "the login shell of \(host) is not the one under test")
        let names = CommandLineParsing.hostileNames + ["back\\slash", "bang!", "$HOME", "tab\there", "it's"]
        let template = "printf '%s|' {}; echo"
        let plain = #"printf '%s|' "a'b" 'c"d' \\ ! "$((6*7))" '$HOME'; echo"#
        let local = futurerun(["-q", "-C", scratch.path, "--each", template] + names)
        let here = futurerun(["-q", "-C", scratch.path, plain])
        let there = remote(hosts, scratch, ["-q", "-S", host, "-C", scratch.path, "--each", template] + names)
        let plainThere = remote(hosts, scratch, ["-q", "-S", host, "-C", scratch.path, plain])
        #expect(there.status == 0 && plainThere.status == 0, "\(there.err)\(plainThere.err)")
        #expect(there.out == local.out && !there.out.isEmpty)
        #expect(plainThere.out == here.out && here.out == "a'b|c\"d|\\|!|42|$HOME|\n")
        #expect(!scratch.exists("PWNED"))
    }

    @Test func workdirJobVariablesAndEnvGoWithTheJob() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let value = "a 'b' \"c\" $d\nnext line"
        let run = futurerun(
            [
                "--ssh", hosts.ssh, "-S", "h2", "-C", scratch.path, "--env", "FR_TEST_VALUE", "--env", "FR_TEST_UNSET",
                "--names", "the-name",
                "pwd; echo \"$FUTURERUN_JOB $FUTURERUN_SLOT $FUTURERUN_NAME\"; printf '%s|' \"$FR_TEST_VALUE\"; echo \"${FR_TEST_UNSET-unset}\"",
            ],
            environment: [("TMPDIR", scratch.path), ("FR_TEST_VALUE", value)])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "\(scratch.path)\n1 1 the-name\n\(value)|unset\n")
    }

    @Test func timeoutEndsTheRemoteProcessTree() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let pids = quoted(scratch.path)
        let run = remote(
            hosts, scratch,
            [
                "-S", "h2", "--timeout", "1s", "--grace", "1s",
                "sleep 300 & echo $! > \(pids)/child; echo $$ > \(pids)/shell; wait",
            ])
        #expect(run.status == 1)
        #expect(run.errLines.contains { $0.contains("timeout") && $0.contains("on h2") })
        try expectEnded(scratch, ["child", "shell"])
        expectConnectionsClosed(scratch)
    }

    /// Each process whose pid a job wrote into `files` has ended (within a few seconds: the
    /// remote grace period).
    private func expectEnded(_ scratch: Scratch, _ files: [String]) throws {
        for file in files {
            let pid = try #require(pid_t((scratch.read(file) ?? "").filter(\.isNumber)), "the job did not write \(file)")
            #expect(eventually(10) { !isAlive(pid) }, "remote process \(file) (\(pid)) still runs")
        }
    }

    @Test(arguments: [("INT", Int32(130)), ("TERM", Int32(143)), ("KILL", Int32(137))])
    func aSignalToFuturerunEndsTheRemoteProcessTree(signal: String, status: Int32) throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let pids = quoted(scratch.path)
        // The signal comes once the remote job has started (it wrote its pids), not after a guess.
        let waitThenSignal =
            "( i=0; while [ ! -s \(pids)/shell ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; kill -\(signal) $$ ) & "
        let run = remote(
            hosts, scratch,
            ["-S", "h2", "--grace", "1s", "sleep 300 & echo $! > \(pids)/child; echo $$ > \(pids)/shell; wait"],
            shellPrefix: waitThenSignal)
        #expect(run.status == status)
        try expectEnded(scratch, ["child", "shell"])
        // Even after SIGKILL, the guardian ends the connection futurerun had left open.
        #expect(eventually(5) { !processAlive(scratch.path + "/futurerun-ssh") }, "a connection of the run was left open")
    }

    @Test func failFastEndsRunningRemoteJobs() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let pids = quoted(scratch.path)
        let run = remote(
            hosts, scratch,
            [
                "--fail-fast", "--grace", "1s", "-S", "2/h2", "sleep 300 & echo $! > \(pids)/child; wait", ":::",
                "while [ ! -s \(pids)/child ]; do sleep 0.05; done; exit 3",
            ])
        #expect(run.status == 3, "the failing job's own status")
        try expectEnded(scratch, ["child"])
    }

    @Test func anUnreachableHostIsTakenOutWithOneNotice() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let run = remote(hosts, scratch, ["-S", "h2,dead", "--joblog", scratch.file("log"), "--each", "echo {}", "a", "b", "c"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "a\nb\nc\n")
        let notices = run.errLines.filter { $0.contains("dead") }
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix("futurerun: host dead is out (ssh: connect to host 127.0.0.1 port 1") == true)
        #expect(notices.first?.hasSuffix("its jobs go to the other hosts") == true)
        let logHosts = (scratch.read("log") ?? "").split(separator: "\n").dropFirst().map { $0.split(separator: "\t")[1] }
        #expect(logHosts == ["h2", "h2", "h2"])
    }

    /// Four jobs over h2 and h3 that each record where they started; once one starts on h3,
    /// `meanwhile` does something to h3. The run's result, and its stderr as text.
    private func runUntilAJobStartsOnH3(
        _ hosts: TestHosts, _ scratch: Scratch, sshOptions: String = "", seconds: String, extra: [String] = [],
        meanwhile: () -> Void
    ) -> (result: CommandResult, err: String) {
        let dir = quoted(scratch.path)
        let job = "echo \"$SSH_CONNECTION\" > \(dir)/on.{}; sleep \(seconds); echo done {}"
        let started = Command.shell(
            "i=0; while ! grep -qs '127.0.0.3' \(dir)/on.* && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done"
        ).run()
        var command = Command(
            [futurerunPath, "--ssh", hosts.ssh + sshOptions, "-S", "1/h2,1/h3"] + extra + ["--each", job, "1", "2", "3", "4"])
        command.environment = [("TMPDIR", scratch.path), ("CI", "")]
        command.timeout = .seconds(120)
        let running = command.run()
        _ = started.value
        meanwhile()
        let result = running.value
        return (result, String(decoding: result.stderr.bytes(), as: UTF8.self))
    }

    @Test func aHostThatDropsHasItsJobsMovedWithoutCountingAnAttempt() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let (outcome, err) = runUntilAJobStartsOnH3(hosts, scratch, seconds: "1.5", extra: ["--json", scratch.file("json")]) {
            hosts.drop("h3")
        }
        #expect(outcome.status == .exited(0), "\(err)")
        #expect(String(decoding: outcome.stdout.bytes(), as: UTF8.self) == "done 1\ndone 2\ndone 3\ndone 4\n")
        #expect(err.split(separator: "\n").filter { $0.contains("h3 is out") }.count == 1)
        #expect(err.contains("futurerun: host h3 is out (its connection dropped); its jobs go to the other hosts"))
        let json = (scratch.read("json") ?? "").split(separator: "\n")
        #expect(json.count == 4 && json.allSatisfy { $0.contains("\"attempts\":1,") && $0.contains("\"host\":\"h2\"") })
        expectConnectionsClosed(scratch)
    }

    @Test func aHostThatGoesSilentIsTakenOutByKeepaliveAndItsJobsMove() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        // Probes every second, given up after two: a silent host is out in about three seconds.
        let (outcome, err) = runUntilAJobStartsOnH3(
            hosts, scratch, sshOptions: " -o ServerAliveInterval=1 -o ServerAliveCountMax=2", seconds: "1"
        ) { hosts.freeze("h3") }
        hosts.drop("h3")
        #expect(outcome.status == .exited(0), "\(err)")
        #expect(String(decoding: outcome.stdout.bytes(), as: UTF8.self) == "done 1\ndone 2\ndone 3\ndone 4\n")
        #expect(err.contains("host h3 is out"), "\(err)")
        #expect(outcome.wallTime < .seconds(60), "taken out by keepalive, not by a TCP timeout")
        expectConnectionsClosed(scratch)
    }

    @Test func anEnvValueThatIsNoUTF8ReachesTheHostByteForByte() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let run = remote(
            hosts, scratch, ["-S", "h2", "--env", "V", "printf %s \"$V\" | od -An -tx1"],
            shellPrefix: "V=$(printf '\\377A\\300'); export V; ")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == " ff 41 c0\n")
    }

    @Test func theDescriptorLimitCapsTheHostsSlotsTogether() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        // ulimit -n 100: (100 - 64) / 4 = 9 jobs at once, whatever the 100 slots; all run.
        let job = "date +%s%N > \(quoted(scratch.path))/start.{}; sleep 0.5; date +%s%N > \(quoted(scratch.path))/end.{}"
        let run = remote(
            hosts, scratch, ["-S", "100/h2", "--each", job] + (1...20).map(String.init), shellPrefix: "ulimit -n 100; ")
        #expect(run.status == 0, "\(run.err)")
        #expect(maximumOverlap(scratch, jobs: 20) <= 9)
        #expect(!run.err.contains("refused"), "planned within the limit, not found by refused spawns: \(run.err)")
        expectConnectionsClosed(scratch)
    }

    @Test func connectionsOpenAsJobsNeedThem() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        for slots in [1000, 3000] {
            let run = remote(hosts, scratch, ["-S", "\(slots)/h2", "--each", "echo {}", "1", "2", "3"])
            #expect(run.status == 0, "\(run.err)")
            #expect(run.out == "1\n2\n3\n")
        }
        #expect(hosts.logins("h2") == 2, "three jobs need one connection, whatever the slots (one a run)")
        expectConnectionsClosed(scratch)
    }

    @Test func withNoHostLeftTheRemainingJobsFailNamingIt() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let run = remote(
            hosts, scratch, ["-S", "dead", "--timeline", scratch.file("run.svg"), "--each", "echo {}", "a", "b", "c"])
        #expect(run.status == 3)
        // The timeline draws no bar for a job that never ran; it lists it, with why.
        let svg = scratch.read("run.svg") ?? ""
        #expect(!svg.contains("class=\"job\"") && svg.ranges(of: "could not run: no host left").count == 3)
        #expect(run.out.isEmpty)
        let failures = run.errLines.filter { $0.hasPrefix("FAIL") }
        #expect(failures.count == 3)
        #expect(failures.allSatisfy { $0.contains("no host left to run it (dead: ssh: connect to host 127.0.0.1 port 1") })
        #expect(run.errLines.first == nil || run.err.contains("no host is left to run jobs"))
    }

    @Test func colonIsThisMachine() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        let run = remote(
            hosts, scratch,
            [
                "-S", "1/:,1/h2", "--joblog", scratch.file("log"), "--each",
                // The first job takes this machine's slot (h2 is still connecting) and keeps it
                // until a job has started on h2, where the second can only go.
                "[ -n \"$SSH_CONNECTION\" ] && touch \(quoted(scratch.path))/remote; "
                    + "\(untilExists(quoted(scratch.file("remote")))); "
                    + "echo {} ${SSH_CONNECTION:+remote}",
                "1", "2",
            ])
        #expect(run.status == 0, "\(run.err)")
        let log = (scratch.read("log") ?? "").split(separator: "\n").dropFirst().map { $0.split(separator: "\t") }
        let hostOf = Dictionary(uniqueKeysWithValues: log.map { (String($0[0]), String($0[1])) })
        #expect(Set(hostOf.values) == [":", "h2"])
        for line in run.out.split(separator: "\n") {
            let number = String(line.prefix { $0 != " " })
            #expect(line.hasSuffix("remote") == (hostOf[number] == "h2"), "\(line)")
        }
    }

    @Test func aRunThatEndsBeforeAHostHasConnectedLeavesNoConnectionBehind() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        // The job here ends after h2-slow's login (its connection is open) and before its first
        // command's answer: that connection is closed, not left open in the background.
        let run = remote(hosts, scratch, ["-S", "1/:,h2-slow", "sleep 1; echo here"])
        #expect(run.status == 0 && run.out == "here\n")
        expectConnectionsClosed(scratch)
    }

    @Test func sigkillDuringALoginLeavesNoConnectionNorControlDirectory() throws {
        let hosts = try startHosts()
        let scratch = Scratch()
        // h2-slow's commands start 2 s after its login: the KILL comes after the login (the master
        // is up) and before the host has answered, and again with jobs running on h2.
        let run = remote(hosts, scratch, ["-S", "h2-slow", "echo never"], shellPrefix: "( sleep 1; kill -KILL $$ ) & ")
        #expect(run.status == 137)
        expectConnectionsClosed(scratch)
        let running = remote(
            hosts, scratch, ["-S", "h2", "sleep 30", ":::", "sleep 30"], shellPrefix: "( sleep 1.5; kill -KILL $$ ) & ")
        #expect(running.status == 137)
        expectConnectionsClosed(scratch)
    }

    @Test func badHostOptionsAreRefusedBeforeAnythingRuns() {
        let scratch = Scratch()
        let marker = quoted(scratch.file("ran"))
        for arguments in [
            ["-S", "0/h2"], ["-S", "-oProxyCommand=x"], ["-S", "h2,h2"], ["-S", "h2,"],
            ["--hosts-file", scratch.file("missing")], ["--hosts-file", "/dev/null"],
            ["-S", "h2", "--ssh", "no-such-ssh-program"], ["-S", "h2", "--ssh", "'unclosed"], ["-S", "h2", "--env", "1BAD"],
        ] {
            let run = futurerun(arguments + ["--joblog", scratch.file("log"), "touch \(marker)"])
            #expect(run.status == 255, "\(arguments)")
            #expect(run.errLines.count == 1 && run.errLines[0].hasPrefix("futurerun: "), "\(arguments): \(run.err)")
            // Nothing half-done: no job, no report file.
            #expect(!scratch.exists("ran") && !scratch.exists("log"), "\(arguments)")
        }
    }
}
