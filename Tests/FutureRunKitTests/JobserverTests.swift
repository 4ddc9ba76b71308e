import FutureCore
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import FutureRunEngine

/// make's jobserver through a real FIFO, as make 4.4 names it in `MAKEFLAGS`.
@Suite struct JobserverTokens {
    /// make's side: a FIFO in `scratch`, held open (read and write, never blocking) to put tokens in
    /// and count them after; and the `MAKEFLAGS` that name it.
    private static func makeFIFO(in scratch: Scratch, width: Int) throws -> (descriptor: Int32, makeflags: String) {
        let path = scratch.file("fifo")
        try #require(mkfifo(path, 0o600) == 0)
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        try #require(descriptor >= 0)
        return (descriptor, "-j\(width) --jobserver-auth=fifo:\(path)")
    }

    @Test func aTokenThatCameWhenNoJobWantsItAnyMoreGoesStraightBack() throws {
        // The client waits for a token while a job wants one; the job then starts on a slot that
        // freed (no new wish is announced), and a token comes: it is not kept until a job ends.
        let scratch = Scratch()
        let (make, makeflags) = try Self.makeFIFO(in: scratch, width: 2)
        defer { close(make) }
        let jobserver = try #require(Jobserver(makeflags: makeflags))
        let asked = Atomic<Int>(0)
        let wants = Atomic<Bool>(true)
        let gained = Atomic<Bool>(false)
        jobserver.start(
            wanted: {
                asked.add(1, ordering: .relaxed)
                return wants.load(ordering: .relaxed)
            },
            gained: { _ in gained.store(true, ordering: .relaxed) })
        defer { jobserver.finish() }
        #expect(eventually { asked.load(ordering: .relaxed) == 1 }, "waiting for a token")
        wants.store(false, ordering: .relaxed)
        var token: UInt8 = 43
        try #require(write(make, &token, 1) == 1)
        // Asked again only once it has read the token (it was waiting on nothing else).
        #expect(eventually { asked.load(ordering: .relaxed) >= 2 })
        let kept = gained.load(ordering: .relaxed)
        #expect(!kept, "the token was kept")
        #expect(eventually { read(make, &token, 1) == 1 }, "the token is back in make's FIFO")
    }

    @Test func everyTokenTakenIsBackOnceTheRunHasFinished() throws {
        // A client that always wants more is finished at a different moment of taking tokens each
        // round. A token read just as the run finished was kept, lost to make for good: the next
        // recipe then got fewer slots (CI saw `make -j2` run a second futurerun one job at a time).
        let scratch = Scratch()
        let (make, makeflags) = try Self.makeFIFO(in: scratch, width: 3)
        defer { close(make) }
        for round in 0..<300 {
            var tokens: [UInt8] = [43, 43]
            try #require(write(make, &tokens, 2) == 2)
            let jobserver = try #require(Jobserver(makeflags: makeflags))
            jobserver.start(wanted: { true }, gained: { _ in })
            // A different interleaving with the token thread each round: finished after a few
            // steps of this thread, not after a time.
            let steps = Atomic<Int>(0)
            for _ in 0..<(round % 60) * 500 { steps.add(1, ordering: .relaxed) }
            jobserver.finish()
            var back = [UInt8](repeating: 0, count: 8)
            let count = read(make, &back, back.count)
            try #require(count == 2, "round \(round): \(max(count, 0)) of 2 tokens back")
        }
    }
}
