import Dispatch
import FutureCore
import FutureProcess
import Glibc
import Testing

private enum Boom: Error, Equatable { case boom(Int) }

// Futures that stand for blocking work (a sleep): on the blocking executor, so that they overlap
// however many other tests' futures the shared pool runs.
private func later<T: Sendable>(_ milliseconds: Int, _ value: T) -> Future<T> {
    Future(on: .blocking) {
        usleep(UInt32(milliseconds * 1000))
        return value
    }
}

private func failing(_ milliseconds: Int, _ code: Int) -> Eventual<Int, Boom> {
    Eventual(on: .blocking) { () throws(Boom) -> Int in
        usleep(UInt32(milliseconds * 1000))
        throw .boom(code)
    }
}

private func succeeding(_ milliseconds: Int, _ value: Int) -> Eventual<Int, Boom> {
    Eventual(on: .blocking) { () throws(Boom) -> Int in
        usleep(UInt32(milliseconds * 1000))
        return value
    }
}

@Suite struct Combinators {
    @Test func mapTransformsValueAndPassesFailureThrough() {
        let doubled = later(10, 20).map { $0 * 2 }
        #expect(doubled.value == 40)
        let failed = failing(5, 1).map { $0 * 2 }
        #expect(failed.wait() == .failure(.boom(1)))
    }

    @Test func mapErrorTransformsOnlyTheFailure() {
        struct Wrapped: Error, Equatable { let code: Int }
        let mapped = failing(5, 4).mapError { error -> Wrapped in
            if case .boom(let code) = error { return Wrapped(code: code) }
            return Wrapped(code: -1)
        }
        #expect(throws: Wrapped(code: 4)) { try mapped.value }
    }

    @Test func flatMapChainsAndStopsAtTheFirstFailure() throws {
        let chained = succeeding(5, 2).flatMap { value in succeeding(5, value + 1) }
        #expect(try chained.value == 3)
        let ran = Locked(false)
        let broken = failing(5, 7).flatMap { value -> Eventual<Int, Boom> in
            ran.withLock { $0 = true }
            return succeeding(0, value)
        }
        #expect(throws: Boom.boom(7)) { try broken.value }
        #expect(!ran.withLock { $0 })
    }

    @Test func recoverTurnsAFailureIntoAValue() {
        let recovered: Future<Int> = failing(5, 3).recover { _ in -1 }
        #expect(recovered.value == -1)
        #expect(succeeding(1, 8).recover { _ in -1 }.value == 8)
    }

    @Test func zipPairsValuesAndFailsFastOnEitherSide() throws {
        let pair = try succeeding(30, 1).zip(succeeding(5, 2)).value
        #expect(pair == (1, 2))
        let slow = succeeding(2000, 1)
        #expect(throws: Boom.boom(9)) { try slow.zip(failing(5, 9)).value }
        #expect(!slow.resolved, "the pair failed without waiting for the slow side")
    }

    @Test func allKeepsInputOrderNotCompletionOrder() throws {
        let futures = [succeeding(60, 0), succeeding(5, 1), succeeding(30, 2)]
        #expect(try Eventual.all(futures).value == [0, 1, 2])
        #expect(Future<Int>.all([]).value == [])
        #expect(throws: Boom.boom(2)) { try Eventual.all([succeeding(5, 0), failing(10, 2)]).value }
    }

    @Test func anyResolvesWithTheFirstToComplete() {
        #expect(Future.any([later(300, "slow"), later(5, "fast")]).value == "fast")
        #expect(throws: Boom.boom(1)) { try Eventual.any([succeeding(300, 0), failing(5, 1)]).value }
    }

    @Test func firstSuccessSkipsFailuresAndFailsOnlyWhenAllFail() throws {
        #expect(try Eventual.firstSuccess([failing(1, 1), succeeding(40, 5), failing(2, 2)]).value == 5)
        #expect(throws: Boom.boom(3)) {
            try Eventual.firstSuccess([failing(1, 1), failing(10, 2), failing(60, 3)]).value
        }
    }

    @Test func ofNoFuturesAnyAndFirstSuccessFailWithNoFuturesInsteadOfHanging() {
        #expect(throws: FutureError.noFutures) { try ThrowingFuture<Int>.any([]).value }
        #expect(throws: FutureError.noFutures) { try Eventual<Int, FutureError>.firstSuccess([]).value }
    }

    @Test func allSettledGivesEveryOutcomeInInputOrderAndNeverStopsEarly() throws {
        let outcomes = Eventual.allSettled([succeeding(40, 1), failing(1, 2), succeeding(10, 3)]).value
        #expect(outcomes.count == 3)
        #expect(try outcomes[0].get() == 1 && outcomes[1] == .failure(.boom(2)) && outcomes[2].get() == 3)
        #expect(Future<Int>.allSettled([]).value.isEmpty)
    }

    @Test func afterResolvesOnceItsDelayIsOverAndAtOnceWhenCancelled() {
        let clock = ContinuousClock()
        let start = clock.now
        Future.after(.milliseconds(50)).value
        #expect(clock.now - start >= .milliseconds(50))
        let cancelled = Future.after(.milliseconds(100))
        cancelled.cancel()
        #expect(cancelled.wait(timeout: .seconds(5)) != nil, "a cancelled delay resolves at once")
        // Its timer still fires, later, and finds it resolved: no second completion (that traps).
        usleep(250_000)
        #expect(cancelled.resolved)
    }

    @Test func reduceFoldsInInputOrder() {
        let words = [later(30, "a"), later(1, "b"), later(10, "c")]
        #expect(Future.reduce("", words) { $0 + $1 }.value == "abc")
    }

    @Test func timeoutFailsSlowFuturesAndCancelsThem() throws {
        let cancelled = Locked(false)
        let slow = Future<Int>.cancellable(on: .blocking) { token in
            token.onCancel { cancelled.withLock { $0 = true } }
            while !token.isCancelled { usleep(1000) }
            return 0
        }
        #expect(throws: FutureError.timedOut(.milliseconds(50))) { try slow.timeout(after: .milliseconds(50)).value }
        _ = slow.value
        #expect(cancelled.withLock { $0 })
        #expect(try later(1, 4).timeout(after: .seconds(5)).value == 4)
        #expect(throws: Boom.boom(1)) { try failing(1, 1).timeout(after: .seconds(5)).value }
    }
}

@Suite struct Cancellation {
    @Test func cancelReachesRunningWork() {
        let started = DispatchSemaphore(value: 0)
        let future = Future<String>.cancellable(on: .blocking) { token in
            started.signal()
            while !token.isCancelled { usleep(500) }
            return "stopped"
        }
        started.wait()
        future.cancel()
        #expect(future.wait(timeout: .seconds(5)) != nil)
        #expect(future.value == "stopped")
    }

    @Test func cancellingADerivedFutureCancelsItsSource() {
        let promise = Promise<Int, Never>()
        let heard = Locked(false)
        promise.onCancel { heard.withLock { $0 = true } }
        promise.future.map { $0 + 1 }.cancel()
        #expect(heard.withLock { $0 })
        #expect(promise.isCancelled)
    }

    @Test func cancelAfterResolutionDoesNothing() {
        let promise = Promise<Int, Never>()
        let heard = Locked(false)
        promise.onCancel { heard.withLock { $0 = true } }
        promise.succeed(1)
        promise.future.cancel()
        #expect(!heard.withLock { $0 })
    }
}

@Suite struct AsyncBridge {
    @Test func awaitingAFutureDoesNotBlockAThread() async throws {
        let value = await later(20, 11).get()
        #expect(value == 11)
        await #expect(throws: Boom.boom(2)) { try await failing(5, 2).get() }
    }

    @Test func asyncClosureBecomesAFuture() async {
        let future = Future<Int>(awaiting: {
            try? await Task.sleep(for: .milliseconds(10))
            return 6
        })
        #expect(await future.get() == 6)
    }

    @Test func cancellingTheFutureCancelsItsTask() async {
        let future = Future<Bool>(awaiting: {
            try? await Task.sleep(for: .seconds(30))
            return Task.isCancelled
        })
        future.cancel()
        #expect(await future.get() == true)
    }
}

@Suite struct FutureSequences {
    @Test func completionsComeAsTheyResolveAndResultsInInputOrder() async {
        let futures = [later(60, "slow"), later(1, "fast"), later(30, "middle")]
        var completed: [String] = []
        for await outcome in Future.completions(of: futures) { completed.append(outcome.get()) }
        #expect(completed == ["fast", "middle", "slow"])
        var ordered: [String] = []
        for await outcome in Future.results(of: [later(60, "a"), later(1, "b"), later(30, "c")]) { ordered.append(outcome.get()) }
        #expect(ordered == ["a", "b", "c"])
        var none = 0
        for await _ in Future<Int>.results(of: []) { none += 1 }
        #expect(none == 0)
    }

    @Test func aCommandsLinesComeAsItWritesThemTheLastOneEvenWithoutANewline() async {
        let run = ProcessEngine.shared.start(.shell("echo one; sleep 0.05; printf 'two\\nthree'"))
        var lines: [String] = []
        for await line in run.stdout.lines { lines.append(line) }
        #expect(lines == ["one", "two", "three"])
        #expect(await run.result.get().status == .exited(0))
    }
}
