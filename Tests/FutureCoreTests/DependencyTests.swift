import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `Eventual.after`: work that starts only once its prerequisites have resolved, without owning them.
@Suite struct Dependencies {
    @Test func workStartsOnlyAfterEveryPrerequisiteWithTheirOutcomesInOrder() {
        let first = Promise<Int, Never>()
        let second = Promise<Int, Never>()
        let started = Locked(false)
        let sum = Future<Int>.after([first.future, second.future]) { outcomes in
            started.withLock { $0 = true }
            return Future(outcomes.map { $0.get() }.reduce(0, +) * 10 + outcomes[0].get())
        } ifCancelled: {
            .success(-1)
        }
        second.succeed(2)
        #expect(!started.withLock { $0 })
        #expect(!sum.resolved)
        first.succeed(5)
        #expect(sum.value == 75, "5 + 2, then the first one's value: the order of the list, not of completion")
    }

    @Test func noPrerequisitesStartsAtOnce() {
        let now = Future<String>.after([Future<Int>]()) { outcomes in
            Future("started with \(outcomes.count)")
        } ifCancelled: {
            .success("")
        }
        #expect(now.value == "started with 0")
    }

    @Test func failedPrerequisitesAreGivenToTheWorkWhichMayDecideNotToStart() {
        enum Broken: Error { case build }
        let build = Promise<Int, Broken>()
        let package = Future<String>.after([build.future]) { outcomes in
            guard case .success = outcomes[0] else { return Future("skipped: build failed") }
            return Future("packaged")
        } ifCancelled: {
            .success("cancelled")
        }
        build.complete(.failure(.build))
        #expect(package.value == "skipped: build failed")
    }

    @Test func cancellingADependentNeverCancelsItsPrerequisites() {
        let shared = Promise<Int, Never>()
        let cancelledUpstream = Locked(false)
        shared.onCancel { cancelledUpstream.withLock { $0 = true } }
        let started = Locked(0)
        let one = Future<Int>.after([shared.future]) { _ in
            started.withLock { $0 += 1 }
            return Future(1)
        } ifCancelled: {
            .success(-1)
        }
        let two = Future<Int>.after([shared.future]) { _ in
            started.withLock { $0 += 1 }
            return Future(2)
        } ifCancelled: {
            .success(-2)
        }
        one.cancel()
        #expect(one.value == -1, "cancelled before its start: resolved at once, without starting")
        #expect(!cancelledUpstream.withLock { $0 }, "the shared prerequisite was not cancelled")
        shared.succeed(0)
        #expect(two.value == 2)
        #expect(started.withLock { $0 } == 1, "only the dependent that was not cancelled started")
    }

    @Test func cancellationPassesDownTheGraph() {
        let root = Promise<Int, Never>()
        let middle = Future<Int>.after([root.future]) { _ in
            Future(1)
        } ifCancelled: {
            .success(-1)
        }
        let leaf = Future<String>.after([middle]) { outcomes in
            Future(outcomes[0].get() < 0 ? "skipped" : "ran")
        } ifCancelled: {
            .success("")
        }
        middle.cancel()
        #expect(leaf.value == "skipped", "the leaf saw its prerequisite's cancelled outcome")
    }

    @Test func cancellingAfterTheStartCancelsTheStartedWork() {
        let gate = Promise<Int, Never>()
        let work = Promise<Int, Never>()
        let workCancelled = Locked(false)
        work.onCancel {
            workCancelled.withLock { $0 = true }
            work.succeed(-9)
        }
        let dependent = Future<Int>.after([gate.future]) { _ in
            work.future
        } ifCancelled: {
            .success(-1)
        }
        gate.succeed(0)
        dependent.cancel()
        #expect(workCancelled.withLock { $0 })
        #expect(dependent.value == -9)
    }

    @Test func aChainOfCommandsRunsOneAfterAnother() throws {
        // Each command records when it started and ended; each starts after the previous ended.
        let scratch = Scratch()
        var previous: Future<CommandResult>?
        for index in 1...5 {
            let line =
                "date +%s%N > \(quoted(scratch.file("s\(index)"))); sleep 0.05; date +%s%N > \(quoted(scratch.file("e\(index)")))"
            let prerequisites = previous.map { [$0] } ?? []
            previous = Future<CommandResult>.after(prerequisites) { _ in
                Command.shell(line).run()
            } ifCancelled: {
                .success(CommandRun.neverStarted().result.value)
            }
        }
        #expect(try #require(previous).value.succeeded)
        let stamp = { (name: String) in Int(scratch.read(name)?.filter(\.isNumber) ?? "") ?? 0 }
        for index in 2...5 {
            #expect(stamp("s\(index)") >= stamp("e\(index - 1)"), "job \(index) started before \(index - 1) ended")
        }
    }

    @Test func aCommandPoolStartsQueuedCommandsInTheirOrder() {
        let pool = CommandPool(width: 1)
        let blocker = pool.submit({ _ in .shell("sleep 0.2") }, order: 0)
        let late = pool.submit({ _ in .shell("echo late") }, order: 3)
        let early = pool.submit({ _ in .shell("echo early") }, order: 1)
        let runs: [Future<CommandResult>] = [blocker, late, early].map { $0.flatMap { $0.result } }
        let results = Future.all(runs).value
        #expect(results.allSatisfy { $0.succeeded })
        #expect(results[2].startTime < results[1].startTime, "the lower order key started first though submitted later")
    }
}
