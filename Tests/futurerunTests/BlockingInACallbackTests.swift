import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// A blocking read of a future in a command's callback, which runs on the engine's thread, would
/// wait for that very thread for ever: FutureCore stops the program with a message instead, in
/// the release build too (the example program built next to the futurerun under test: make test
/// runs this suite against the debug and the release builds).
@Suite struct BlockingInACallback {
    @Test func itStopsWithAMessageInsteadOfHanging() throws {
        let example = String(futurerunPath[..<futurerunPath.lastIndex(of: "/")!]) + "/futurecore-example"
        try #require(access(example, X_OK) == 0, "\(example) is not built")
        var command = Command([example, "blocking-in-a-callback"])
        command.timeout = .seconds(30)  // only against a hang, which is the bug
        let result = command.run().value
        let err = String(decoding: result.stderr.bytes(), as: UTF8.self)
        #expect(result.status != .timedOut, "it hung")
        #expect(result.signal == SIGILL || result.signal == SIGTRAP, "\(result.status)")
        #expect(err.contains("a blocking read of a future (value, wait) on the process engine's thread would deadlock"), "\(err)")
    }
}
