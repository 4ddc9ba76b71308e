import Glibc
import TestSupport
import Testing

@testable import FutureCore
@testable import FutureProcess

/// Engines a test owns: one per way of watching exits (an engine lives as long as the process).
private enum Engines {
    static let pidfd = ProcessEngine(exitWatcher: .pidfd)
    static let childSignal = ProcessEngine(exitWatcher: .childSignal)
}

@Suite struct ConstructedEngines {
    @Test func aConstructedEngineRunsCommandsOfItsOwn() {
        let engine = ProcessEngine()
        let results = (1...3).map { Command.shell("echo \($0); exit \($0)").run(on: engine) }
        #expect(results.map { $0.value.status } == [.exited(1), .exited(2), .exited(3)])
        #expect(String(decoding: results[1].value.stdout.bytes(), as: UTF8.self) == "2\n")
        #expect(engine.runningCount == 0)
        #expect(engine !== ProcessEngine.shared)
    }

    @Test(arguments: [ExitWatcher.Kind.pidfd, .childSignal])
    func bothExitWatchersSeeEveryExitWithItsStatus(kind: ExitWatcher.Kind) {
        let engine = kind == .pidfd ? Engines.pidfd : Engines.childSignal
        #expect(engine.exitWatcherKind == kind)
        // Many short children ending together, and one that outlives them.
        let long = Command.shell("sleep 0.3; exit 7").run(on: engine)
        let short = (0..<200).map { Command.shell("exit \($0 % 5)").run(on: engine) }
        #expect(short.enumerated().allSatisfy { $0.element.value.status == .exited(Int32($0.offset % 5)) })
        #expect(long.value.status == .exited(7))
        var timed = Command.shell("sleep 5")
        timed.timeout = .milliseconds(100)
        #expect(timed.run(on: engine).value.status == .timedOut)
    }

    @Test func thePortableWatcherNeverReapsAChildItDidNotStart() {
        // A child of this process that the engine does not know: only its parent may reap it.
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("0.2"), nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, nil) == 0)
        // Its SIGCHLD reaches the engine while the engine's own children run and end.
        let runs = (0..<20).map { _ in Command.shell("sleep 0.05").run(on: Engines.childSignal) }
        Glibc.usleep(300_000)
        #expect(runs.allSatisfy { $0.value.status == .exited(0) })
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid, "the engine reaped a child that is not its own")
    }
}
