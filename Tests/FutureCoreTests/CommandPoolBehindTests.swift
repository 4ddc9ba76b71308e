import Testing

@testable import FutureCore
@testable import FutureProcess

/// A pool whose runner takes commands behind a seat's running one (``CommandPool/Behind``), with
/// a stand-in runner: no process. The runner's queue per slot stands for a warm shell's pipe.
@Suite struct CommandPoolBehind {
    /// A runner that queues what it is given per slot, and ends its jobs when the test says.
    private final class Runner: Sendable {
        private struct Job {
            let name: String
            let promise: Promise<CommandResult, Never>
        }

        private let slots = Locked<[Int: [Job]]>([:])
        /// The most commands of any one slot at once, and in all.
        let peak = Locked((perSlot: 0, all: 0))
        /// Whether it takes more behind; commands named `alone…` it never takes behind.
        let takes = Locked(true)
        /// Runs as it hands an `alone…` command back.
        let declining = Locked<(@Sendable () -> Void)?>(nil)

        func start(_ command: Command, _ seat: CommandPool.Seat) -> CommandRun {
            let promise = Promise<CommandResult, Never>()
            slots.withLock { slots in
                slots[seat.slot, default: []].append(Job(name: command.arguments[0], promise: promise))
                let all = slots.values.reduce(0) { $0 + $1.count }
                peak.withLock { $0 = (max($0.perSlot, slots[seat.slot]!.count), max($0.all, all)) }
            }
            return .standIn(result: promise.future)
        }

        func startBehind(_ command: Command, _ seat: CommandPool.Seat) -> CommandRun? {
            guard command.arguments[0].hasPrefix("alone") else { return start(command, seat) }
            declining.withLock { $0 }?()
            return nil
        }

        /// The names in each slot, the running one first.
        var queues: [Int: [String]] { slots.withLock { $0.mapValues { $0.map(\.name) } } }

        /// Ends the running job of `slot`: its name.
        @discardableResult
        func finishFirst(ofSlot slot: Int) -> String {
            let job = slots.withLock { $0[slot]!.removeFirst() }
            let output = CommandRun.neverStarted().stdout
            job.promise.succeed(
                CommandResult(notSpawnedHere: .exited(0), startTime: 0, wallTime: .zero, stdout: output, stderr: output))
            return job.name
        }
    }

    private func pool(_ runner: Runner, width: Int = 2, depth: Int = 2) -> CommandPool {
        CommandPool(
            width: width, start: runner.start,
            behind: CommandPool.Behind(
                depth: depth, takes: { _ in runner.takes.withLock { $0 } }, start: runner.startBehind))
    }

    @Test func commandsWaitBehindARunningOneAndTakeItsSeatInTurn() {
        let runner = Runner()
        let pool = pool(runner)
        let runs = (1...9).map { pool.run(Command(["j\($0)"])) }
        #expect(runner.queues == [1: ["j1"], 2: ["j2"]] && pool.queued == 7)
        // A command that starts or ends in a seat fills the places behind it.
        #expect(runner.finishFirst(ofSlot: 1) == "j1")
        #expect(runner.queues[1] == ["j3", "j4", "j5"] && pool.running == 2 && pool.queued == 4)
        #expect(runner.finishFirst(ofSlot: 2) == "j2")
        #expect(runner.queues[2] == ["j6", "j7", "j8"] && pool.queued == 1)
        // An end hands the seat to the next behind, and fills behind it again.
        #expect(runner.finishFirst(ofSlot: 1) == "j3")
        #expect(runner.queues[1] == ["j4", "j5", "j9"] && pool.running == 2 && pool.queued == 0)
        // The seat is held to the last one behind, then given back.
        for _ in 0..<3 { runner.finishFirst(ofSlot: 2) }
        #expect(pool.running == 1)
        for _ in 0..<3 { runner.finishFirst(ofSlot: 1) }
        #expect(runs.allSatisfy { $0.value.status == .exited(0) })
        #expect(pool.running == 0 && pool.queued == 0)
        #expect(runner.peak.withLock { $0 } == (perSlot: 3, all: 6))
    }

    @Test func aNarrowedPoolFillsNothingBehindUntilItsSeatsComeFree() {
        let runner = Runner()
        let pool = pool(runner)
        let runs = (1...10).map { pool.run(Command(["j\($0)"])) }
        runner.finishFirst(ofSlot: 1)
        runner.finishFirst(ofSlot: 2)
        #expect(runner.queues == [1: ["j3", "j4", "j5"], 2: ["j6", "j7", "j8"]] && pool.queued == 2)
        pool.width = 1
        runner.finishFirst(ofSlot: 1)
        #expect(runner.queues[1] == ["j4", "j5"] && pool.queued == 2)
        for _ in 0..<3 { runner.finishFirst(ofSlot: 2) }
        // Slot 2 came free and is not given again; slot 1 is within the width: it fills again.
        #expect(runner.queues[2] == [] && pool.running == 1)
        runner.finishFirst(ofSlot: 1)
        #expect(runner.queues[1] == ["j5", "j9", "j10"])
        for _ in 0..<3 { runner.finishFirst(ofSlot: 1) }
        #expect(runs.allSatisfy { $0.value.status == .exited(0) } && pool.running == 0)
    }

    @Test func aCommandTheRunnerCannotTakeBehindWaitsForASeatFirstInLine() {
        let runner = Runner()
        let pool = pool(runner, width: 1, depth: 4)
        let runs = ["j1", "j2", "alone3", "j4"].map { pool.run(Command([$0])) }
        runner.finishFirst(ofSlot: 1)
        #expect(runner.queues[1] == ["j2"] && pool.queued == 2)
        runner.finishFirst(ofSlot: 1)
        // Its own seat at last, with the next one behind it.
        #expect(runner.queues[1] == ["alone3", "j4"])
        runner.finishFirst(ofSlot: 1)
        runner.takes.withLock { $0 = false }
        runner.finishFirst(ofSlot: 1)
        #expect(runs.allSatisfy { $0.value.status == .exited(0) } && pool.running == 0)
    }

    @Test func aCommandHandedBackAfterTheStopNeverStarts() {
        let runner = Runner()
        let pool = pool(runner, width: 1)
        // The stop comes while the runner looks at the command (another thread's Ctrl-C, say).
        runner.declining.withLock { $0 = { pool.stopStarting() } }
        let runs = ["j1", "j2", "alone3"].map { pool.run(Command([$0])) }
        // j2 takes the seat as j1 ends, and the pool offers alone3 behind it.
        runner.finishFirst(ofSlot: 1)
        #expect(runs[2].resolved)
        #expect(runs[2].outcome?.get().status == .cancelled)
        runner.finishFirst(ofSlot: 1)
        #expect(runs[1].value.status == .exited(0) && pool.running == 0)
    }

    @Test func aStoppedPoolStartsNothingBehind() {
        let runner = Runner()
        let pool = pool(runner, width: 1)
        let first = pool.run(Command(["j1"]))
        pool.stopStarting()
        let later = pool.run(Command(["j2"]))
        #expect(runner.queues == [1: ["j1"]])
        runner.finishFirst(ofSlot: 1)
        #expect(first.value.status == .exited(0) && later.value.status == .cancelled)
    }
}
