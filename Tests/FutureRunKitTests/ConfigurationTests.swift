import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// The run's decisions as functions of options and made-up machine facts: no file is read, no
/// limit or environment variable of this machine is asked.
@Suite struct Configuration {
    private func facts(
        cpus: Int = 4, environment: [String: String] = [:], descriptors: Int? = nil, processes: Int? = nil,
        processesOfUser: Int = 0, terminal: Bool = false
    ) -> SystemFacts {
        SystemFacts(
            cpus: cpus, environment: environment, descriptorLimit: descriptors, processLimit: processes,
            processesOfUser: { processesOfUser }, stderrIsTerminal: terminal)
    }

    private func configuration(
        _ arguments: [String] = [], _ facts: SystemFacts, hosts: Int = 0, jobserver: Jobserver.Reach = .none,
        command: [String] = ["true"], more: (inout RunFacts) -> Void = { _ in }
    ) throws -> RunConfiguration {
        guard case .run(let options) = try OptionParser.parse((arguments + command).map { Array($0.utf8) }) else {
            throw UsageError.noCommand
        }
        var runFacts = RunFacts(system: facts)
        runFacts.site =
            hosts > 0
            ? HostsSite(hosts: try (0..<hosts).map { try HostSpec.parse("build\($0)") })
            : LocalSite(jobserver: nil, reach: jobserver)
        more(&runFacts)
        return try RunConfiguration(options: options, facts: runFacts)
    }

    @Test func theWidthIsTheCPUsOrJAndTheWindowFollowsIt() throws {
        #expect(try configuration([], facts(cpus: 6)).width == 6)
        #expect(try configuration(["-j", "50%"], facts(cpus: 6)).width == 3)
        let wide = try configuration(["-j", "10000"], facts())
        #expect(wide.width == 10000 && wide.scheduler.window == 4096 * 2 + 64)
        #expect(try configuration(["-j", "2"], facts()).scheduler.window == 2 * 2 + 64)
        #expect(try configuration(["-j", "2"], facts(), hosts: 2).scheduler.window == 4096 * 2 + 64, "hosts add slots later")
    }

    @Test func theDescriptorLimitLowersTheWidthAndSaysSoOnlyWhenAskedForMore() throws {
        let capped = try configuration(["-j", "1000"], facts(descriptors: 1024))
        #expect(capped.width == 240)
        #expect(capped.widthNotice?.contains("instead of -j 1000: the descriptor limit (ulimit -n) is 1024") == true)
        let unlimited = try configuration(["-j", "0"], facts(descriptors: 1024))
        #expect(unlimited.width == 240 && unlimited.widthNotice == nil, "-j 0 asks for as many as may be")
        #expect(try configuration(["-j", "8"], facts(descriptors: 1024)).widthNotice == nil)
    }

    @Test func theProcessLimitIsCountedOnlyWhenItIsNear() throws {
        var counted = false
        var near = facts(processes: 300, processesOfUser: 100)
        near.processesOfUser = {
            counted = true
            return 100
        }
        let capped = try configuration(["-j", "100"], near)
        #expect(counted && capped.width == (300 - 100 - 16) / 3)
        #expect(capped.widthNotice?.contains("the process limit (ulimit -u) is 300") == true)
        counted = false
        var far = facts(processes: 100_000)
        far.processesOfUser = {
            counted = true
            return 0
        }
        #expect(try configuration(["-j", "8"], far).width == 8 && !counted)
    }

    @Test func aJobserverMakeKeepsFromThisRecipeMeansOneJobAtATime() throws {
        let kept = try configuration(["-j", "8"], facts(), jobserver: .unreachable)
        #expect(kept.width == 1 && kept.widthNotice?.contains("write '+futurerun ...'") == true)
        #expect(try configuration(["-j", "8"], facts(), jobserver: .reached).width == 8)
    }

    @Test func progressColorsAndCIFollowTheTerminalAndTheEnvironment() throws {
        #expect(try configuration([], facts(terminal: true)).showsProgress)
        #expect(try !configuration([], facts(terminal: false)).showsProgress)
        #expect(try !configuration([], facts(environment: ["CI": "true"], terminal: true)).showsProgress)
        #expect(try !configuration([], facts(environment: ["TERM": "dumb"], terminal: true)).showsProgress)
        #expect(try !configuration(["-q"], facts(terminal: true)).showsProgress)
        #expect(try configuration(["--progress"], facts()).showsProgress)
        #expect(try configuration([], facts(terminal: true)).colors)
        #expect(try !configuration([], facts(environment: ["NO_COLOR": "1"], terminal: true)).colors)
        let github = try configuration([], facts(environment: ["GITHUB_ACTIONS": "true", "CI": "true"]))
        #expect(github.reporter.ci == .github && github.reporter.heartbeat && !github.streamsLive)
        #expect(try configuration([], facts(environment: ["GITLAB_CI": "true"])).reporter.ci == .gitlab)
    }

    @Test func outputStreamsLiveUnlessAJobMayRunAgainOrIsHeld() throws {
        #expect(try configuration([], facts()).streamsLive)
        #expect(try !configuration(["--retries", "2"], facts()).streamsLive)
        #expect(try !configuration([], facts(), hosts: 1).streamsLive)
        #expect(try !configuration(["--quiet-success"], facts()).streamsLive)
    }

    @Test func resumeAppendsToTheJoblogItReads() throws {
        #expect(try configuration(["--joblog", "j.log"], facts()).jobLog == .init(path: "j.log", appends: false))
        #expect(try configuration(["--resume", "--joblog", "j.log"], facts()).jobLog == .init(path: "j.log", appends: true))
        #expect(try configuration(["--joblog", "+j.log"], facts()).jobLog == .init(path: "j.log", appends: true))
    }

    @Test func theJobsRunInTheAllocationOnTheHostsOrHere() throws {
        let here = try configuration([], facts(cpus: 3), jobserver: .reached)
        #expect(here.width == 3 && here.site.jobserverReach == .reached && here.runningLimit == .max)
        #expect(here.streamsLive && here.scheduler.directExec != nil && here.warmShells != nil, "attempts run here")
        let hosts = try configuration(["-j", "2"], facts(descriptors: 1024), hosts: 2)
        #expect(hosts.runningLimit == 240, "each host's ssh commands run here, within this machine's limits")
        #expect(!hosts.streamsLive && hosts.scheduler.directExec == nil && hosts.warmShells == nil)
        #expect(hosts.scheduler.window == 4096 * 2 + 64, "hosts add slots as they connect")
        let allocation = SlurmAllocation(jobID: "42", nodes: [("n1", 4), ("n2", 4)], tasks: nil, cpusPerStep: 1)
        let slurm = try configuration(["--slurm", "--slurm-rate", "7"], facts(cpus: 64)) { facts in
            facts.site = SlurmSite(allocation: allocation)
        }
        #expect(slurm.cpus == 8 && slurm.width == 8, "the allocation's slots are the CPUs -j counts")
        #expect(slurm.scheduler.directExec == nil && slurm.warmShells == nil, "steps run on the nodes")
    }

    /// Each way to run jobs checks its own options, before anything is read.
    @Test(
        arguments: [
            (["--slurm-rate", "5"], "works only with --slurm"),
            (["--slurm", "--memfree", "1G"], "--slurm"),
            (["--slurm", "-S", "h1"], "--slurm"),
            (["--slurm", "--slurm-slots", "--pipe"], "--slurm-slots"),
            (["-S", "h1", "--load", "4"], "--load"),
            (["-S", "h1", "--pipe"], "--pipe"),
            (["--hosts-file", "hosts.txt", "--memsuspend", "1G"], "--memsuspend"),
            (["-S", "h1", "--slurm-cpus", "2"], "works only with --slurm"),
            (["-S", "h1"], nil), (["--slurm", "--slurm-slots"], nil), (["--memfree", "1G", "--load", "2"], nil),
        ] as [([String], String?)])
    func eachWayChecksItsOwnOptions(arguments: [String], refusal: String?) throws {
        guard case .run(let options) = try OptionParser.parse((arguments + ["true"]).map { Array($0.utf8) }) else {
            throw UsageError.noCommand
        }
        do {
            try LaunchKinds.check(options)
            #expect(refusal == nil, "\(arguments) passed")
        } catch {
            #expect(refusal.map { error.description.contains($0) } == true, "\(arguments): \(error.description)")
        }
    }

    @Test func theOptionsAreSettledFromTheFacts() throws {
        let fromFile = try configuration(["-j", #filePath], facts()) { $0.jobsFile = (#filePath, .count(5)) }
        #expect(fromFile.width == 5 && fromFile.options.jobs == .count(5))
        #expect(fromFile.scheduler.window == 4096 * 2 + 64, "-j FILE may widen the run later")
        let gnu = try configuration(["--gnu"], facts(), command: ["echo"]) { $0.gnuShell = "/bin/zsh" }
        #expect(gnu.options.shell == "/bin/zsh")
        var exported = facts()
        exported.bashFunctions = ["greet"]
        let bash = try configuration([], exported)
        #expect(bash.options.shell == "/bin/bash" && bash.startNotices.first?.contains("exported bash functions") == true)
        #expect(try configuration(["--shell", "/bin/dash"], exported).options.shell == "/bin/dash")
        var typing = facts()
        typing.stdinIsTerminal = true
        #expect(
            try configuration([], typing, command: []).startNotices.first?.hasPrefix("reading jobs from the terminal") == true)
        #expect(try configuration([], typing).startNotices.isEmpty, "the command is given: nothing is read")
    }

    @Test func moreMemoryThanThereIsIsRefused() throws {
        let total = 1 << 30
        #expect(throws: UsageError.self) {
            try configuration(["--memfree", "2G"], facts()) { $0.memoryTotal = total }
        }
        #expect(throws: UsageError.self) {
            try configuration(["--memsuspend", "600M"], facts()) { $0.memoryTotal = total }
        }
        #expect(try configuration(["--memfree", "600M"], facts()) { $0.memoryTotal = total }.width == 4)
    }
}
