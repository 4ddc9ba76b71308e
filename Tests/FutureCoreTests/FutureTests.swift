import Dispatch
import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

@Sendable private func expensiveCall() -> String { "computed" }

/// The seed's behaviour: `Future { }` and `Future(call())`, blocking `value`, non-blocking `resolved`.
@Suite struct SeedBehaviour {
    @Test func closureAndAutoclosureFormsBothRunAsynchronously() {
        let gate = DispatchSemaphore(value: 0)
        let fromClosure = Future { () -> Int in
            gate.wait()
            return 1
        }
        let fromCall = Future(expensiveCall())
        #expect(fromClosure.resolved == false)
        gate.signal()
        #expect(fromClosure.value == 1)
        #expect(fromCall.value == "computed")
    }

    @Test func optionalResultMayBeNil() {
        let name: Future<String?> = Future { nil }
        #expect(name.value == nil)
        let some: Future<String?> = Future { "x" }
        #expect(some.value == "x")
    }

    @Test func resolvedTurnsTrueOnceTheWorkFinishes() {
        let gate = DispatchSemaphore(value: 0)
        let future = Future { () -> Int in
            gate.wait()
            return 7
        }
        #expect(!future.resolved)
        #expect(!future.resolved)
        gate.signal()
        _ = future.value
        #expect(future.resolved)
    }

    @Test func valueReadTwiceDoesNotRunTheWorkAgainOrBlock() {
        let runs = Locked(0)
        let future = Future { () -> Int in
            runs.withLock { $0 += 1 }
            return 3
        }
        #expect(future.value == 3)
        // Resolved: reading again takes the stored value (outcome never blocks) and runs nothing.
        #expect(future.resolved)
        #expect(future.outcome?.get() == 3)
        #expect(future.value == 3)
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func throwingWorkDeliversItsTypedError() {
        enum ParseError: Error, Equatable { case bad(String) }
        let future = Eventual<Int, ParseError> { () throws(ParseError) -> Int in throw .bad("x") }
        #expect(throws: ParseError.bad("x")) { try future.value }
        let untyped = ThrowingFuture<Int> { throw ParseError.bad("y") }
        #expect(throws: ParseError.bad("y")) { try untyped.value }
    }

    @Test func waitWithTimeoutReturnsNilOnTimeAndTheOutcomeWhenReady() {
        let gate = DispatchSemaphore(value: 0)
        let future = Future { () -> Int in
            gate.wait()
            return 9
        }
        let start = ContinuousClock.now
        #expect(future.wait(timeout: .milliseconds(100)) == nil)
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(90))
        #expect(waited < .seconds(2))
        gate.signal()
        #expect(future.wait(timeout: .seconds(10))?.get() == 9)
    }
}

@Suite struct PromiseBehaviour {
    @Test func promiseCompletesItsFutureFromOutside() {
        let promise = Promise<Int, Never>()
        #expect(!promise.future.resolved)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { promise.succeed(5) }
        #expect(promise.future.value == 5)
    }

    @Test func secondCompletionIsReportedAndDoesNotOverwrite() {
        let promise = Promise<Int, Never>()
        #expect(promise.tryComplete(.success(1)))
        #expect(!promise.tryComplete(.success(2)))
        #expect(promise.future.value == 1)
    }

    @Test func tenThousandFuturesCompletedFromManyThreadsRunEachCallbackExactlyOnce() {
        let count = 10_000
        let promises = (0..<count).map { _ in Promise<Int, Never>() }
        let calls = Locked([Int](repeating: 0, count: count))
        for (index, promise) in promises.enumerated() {
            promise.future.onSuccess(on: .inline) { value in
                #expect(value == index)
                calls.withLock { $0[index] += 1 }
            }
        }
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            // Every promise is raced by two lanes; exactly one completion must win.
            for index in stride(from: lane % 4, to: count, by: 4) {
                promises[index].tryComplete(.success(index))
            }
        }
        #expect(calls.withLock { $0 }.allSatisfy { $0 == 1 })
    }
}

@Suite struct Callbacks {
    @Test func callbacksRunInRegistrationOrder() {
        let promise = Promise<Int, Never>()
        let order = Locked([Int]())
        for index in 0..<20 { promise.future.onComplete(on: .inline) { _ in order.withLock { $0.append(index) } } }
        promise.succeed(0)
        #expect(order.withLock { $0 } == Array(0..<20))
    }

    @Test func successAndFailureCallbacksSeeOnlyTheirOutcome() {
        enum Boom: Error { case boom }
        let ok = Promise<Int, Boom>()
        let failed = Promise<Int, Boom>()
        let seen = Locked([String]())
        for promise in [ok, failed] {
            promise.future.onSuccess(on: .inline) { value in seen.withLock { $0.append("success \(value)") } }
            promise.future.onFailure(on: .inline) { _ in seen.withLock { $0.append("failure") } }
        }
        ok.succeed(1)
        failed.fail(.boom)
        #expect(seen.withLock { $0 } == ["success 1", "failure"])
    }

    @Test func callbackOnAQueueRunsOnThatQueue() async {
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let promise = Promise<Int, Never>()
        await withCheckedContinuation { continuation in
            promise.future.onComplete(on: .queue(queue)) { _ in
                #expect(DispatchQueue.getSpecific(key: key) == 42)
                continuation.resume()
            }
            promise.succeed(1)
        }
    }

    @Test func callbackRegisteredAfterResolutionRunsAtOnce() {
        let future = Future<Int>(resolved: .success(3))
        let seen = Locked(0)
        future.onSuccess(on: .inline) { value in seen.withLock { $0 = value } }
        #expect(seen.withLock { $0 } == 3)
    }

    @Test func aCallbackRunsOffTheResolvingThreadByDefaultAndMayWaitThere() {
        // The promise is kept by a command's end, on the engine's thread: an inline callback there
        // that read `later` would trap (ThreadingRules); one on the default executor may wait.
        let later = Future(on: .blocking) {
            usleep(200_000)
            return 7
        }
        let resolver = Locked<String?>(nil)
        let read = Promise<Int, Never>()
        Command.shell("true").run().onComplete { _ in
            resolver.withLock { $0 = readText("/proc/thread-self/comm") }
            read.succeed(later.value)
        }
        #expect(read.future.wait(timeout: .seconds(20)) == .success(7))
        #expect(resolver.withLock { $0 } == "futurecore-jobs\n", "on the shared pool, not the engine's thread")
    }
}
