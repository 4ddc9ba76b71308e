import FutureCore
import Glibc
import TestSupport
import Testing

@testable import FutureRunEngine

/// make's jobserver through a real FIFO, as make 4.4 names it in `MAKEFLAGS`.
@Suite struct JobserverTokens {
    @Test func everyTokenTakenIsBackOnceTheRunHasFinished() throws {
        // A client that always wants more is finished at a different moment of taking tokens each
        // round. A token read just as the run finished was kept, lost to make for good: the next
        // recipe then got fewer slots (CI saw `make -j2` run a second futurerun one job at a time).
        let scratch = Scratch()
        let path = scratch.file("fifo")
        try #require(mkfifo(path, 0o600) == 0)
        // make's side: holds the FIFO open, puts the tokens in, counts them after.
        let make = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        try #require(make >= 0)
        defer { close(make) }
        for round in 0..<300 {
            var tokens: [UInt8] = [43, 43]
            try #require(write(make, &tokens, 2) == 2)
            let jobserver = try #require(Jobserver(makeflags: "-j3 --jobserver-auth=fifo:\(path)"))
            jobserver.start(wanted: { true }, gained: { _ in })
            let until = ContinuousClock.now + .microseconds(round % 60)
            while ContinuousClock.now < until {}
            jobserver.finish()
            var back = [UInt8](repeating: 0, count: 8)
            let count = read(make, &back, back.count)
            try #require(count == 2, "round \(round): \(max(count, 0)) of 2 tokens back")
        }
    }
}
