import Dispatch
import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

@Suite struct Executors {
    @Test func poolNeverRunsMoreThanItsWidth() {
        let pool = JobPool(width: 3)
        let now = Locked((running: 0, peak: 0))
        let futures = (0..<30).map { _ in
            Future(on: pool) { () -> Int in
                now.withLock {
                    $0.running += 1
                    $0.peak = max($0.peak, $0.running)
                }
                usleep(2000)
                now.withLock { $0.running -= 1 }
                return 1
            }
        }
        #expect(Future.reduce(0, futures, +).value == 30)
        #expect(now.withLock { $0.peak } == 3)
    }

    @Test func chainOfAThousandFuturesWaitingOnEachOtherCompletesOnAPoolOfTwo() {
        let pool = JobPool(width: 2)
        var previous = Future(on: pool) { 0 }
        for _ in 0..<1000 {
            let before = previous
            previous = Future(on: pool) { before.value + 1 }
        }
        #expect(previous.wait(timeout: .seconds(60))?.get() == 1000)
    }

    @Test func widthCanBeRaisedWhileWorkIsQueued() {
        let pool = JobPool(width: 1)
        let gate = DispatchSemaphore(value: 0)
        let blocker = Future(on: pool) { () -> Int in
            gate.wait()
            return 0
        }
        let queued = Future(on: pool) { 1 }
        #expect(queued.wait(timeout: .milliseconds(100)) == nil)
        pool.width = 2
        #expect(queued.wait(timeout: .seconds(5)) != nil)
        gate.signal()
        _ = blocker.value
    }

    @Test func blockingExecutorOverlapsManyBlockingFutures() {
        // Each records when it started and ended; all overlapped if the last start came before
        // the first end. Under the thread sanitizer starting 64 threads alone took over 200 ms
        // (make tsan, alongside the ssh logins of the remote tests): the sleep is longer there.
        let sleep: UInt32 = isThreadSanitized ? 2_000_000 : 200_000
        let stamps = Locked<[(start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([])
        let sleepers = (0..<64).map { _ in
            Future(on: .blocking) {
                let start = ContinuousClock.now
                usleep(sleep)
                stamps.withLock { $0.append((start, .now)) }
                return 1
            }
        }
        #expect(Future.reduce(0, sleepers, +).value == 64)
        let recorded = stamps.withLock { $0 }
        #expect(recorded.count == 64)
        #expect(recorded.map(\.start).max()! < recorded.map(\.end).min()!, "all 64 ran at once")
    }

    /// Threads of this process now named `name`, from the kernel's list.
    private static func threads(named name: String) -> Int {
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let id = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard id.first?.isNumber == true else { continue }
            if readText("/proc/self/task/\(id)/comm") == name + "\n" { count += 1 }
        }
        return count
    }

    @Test func theDefaultExecutorRunsAThousandFuturesOnAFewThreadsAndLendsSlotsToWaiters() {
        // The default executor is the shared pool; its threads, counted by their name while the
        // futures run.
        let most = Locked(0)
        let futures = (0..<1000).map { index in
            Future {
                let now = Self.threads(named: "futurecore-jobs")
                most.withLock { $0 = max($0, now) }
                return index
            }
        }
        #expect(Future.reduce(0, futures, +).value == 499_500)
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #expect((1...(cores + 4)).contains(most.withLock { $0 }), "\(most.withLock { $0 }) threads")
        // A future on the pool that waits for another future on the pool lends its slot: with one
        // slot per processor and a waiter in each, the awaited ones still run.
        let waiters = (0..<(2 * cores)).map { index in
            Future(on: .shared) { Future(on: .shared) { index }.value }
        }
        #expect(Future.all(waiters).wait(timeout: .seconds(20)) != nil, "waiters deadlocked the pool")
    }

    @Test func inlineExecutorRunsOnTheCallersThread() {
        let here = pthread_self()
        let future = Future(on: .inline) { pthread_equal(pthread_self(), here) != 0 }
        #expect(future.resolved)
        #expect(future.value)
    }
}

@Suite struct HelpWhileWaiting {
    @Test func aReaderRunsAPoolFutureNoThreadHasBegunAndOtherExecutorsKeepTheirWork() {
        // A pool of one slot, held: the future's work is queued, so only the reader can run it.
        let pool = JobPool(width: 1)
        let release = DispatchSemaphore(value: 0)
        let holding = Future(on: pool) { release.wait() }
        // The reader reads on a thread of its own, so that without help it would wait (in vain,
        // until the slot frees) and this test sees that as a timeout rather than hang.
        let read = Future(on: .blocking) { () -> Bool in
            let reader = pthread_self()
            return Future(on: pool) { pthread_equal(pthread_self(), reader) != 0 }.value
        }
        #expect(read.wait(timeout: .seconds(10)) == .success(true), "the reader ran the queued work itself")
        release.signal()
        holding.value
        let reader = pthread_self()
        // A serial queue's work stays on the queue (its exclusion is what the caller relies on).
        let queue = DispatchQueue(label: "futurecore.test.serial")
        let onQueue = Future(on: .queue(queue)) { pthread_equal(pthread_self(), reader) == 0 }
        #expect(onQueue.value)
    }
}
