import Testing

@testable import FutureRunKit

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
        _ arguments: [String] = [], _ facts: SystemFacts, hosts: Int = 0, jobserver: RunConfiguration.JobserverReach = .none
    ) throws -> RunConfiguration {
        guard case .run(let options) = try OptionParser.parse((arguments + ["true"]).map { Array($0.utf8) }) else {
            throw UsageError.noCommand
        }
        return RunConfiguration(options: options, facts: facts, hostCount: hosts, jobserver: jobserver)
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
}
