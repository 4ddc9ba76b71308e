import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `Examples/FutureCoreExample`, the program the DocC articles quote, run as it is built next to the
/// futurerun under test: every example of the library's API does what its comment says.
@Suite struct ExampleProgram {
    @Test func everyExamplePrintsWhatItsCommentSays() throws {
        let example = String(futurerunPath[..<futurerunPath.lastIndex(of: "/")!]) + "/futurecore-example"
        try #require(access(example, X_OK) == 0, "\(example) is not built")
        var command = Command([example])
        command.timeout = .seconds(60)  // only against a hang
        let result = command.run().value
        let lines = String(decoding: result.stdout.bytes(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(result.status == .exited(0), "\(String(decoding: result.stderr.bytes(), as: UTF8.self))")
        let user = String(cString: getpwuid(geteuid()).pointee.pw_name)
        #expect(
            lines == [
                "hello 42", "ran: Linux \(user)", "pool: 1,2,3,4", "recovered: -1", "graph: packaged",
                "settled: exited(0) exited(3)", "none: no futures were given", "after: 50ms later",
                #"async: ["fast", "slow", "fast", "slow"] ["slow", "fast", "slow", "fast"] ["one", "two"] cancelled"#,
            ])
    }
}
