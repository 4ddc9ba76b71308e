import FutureCore
import FutureProcess
import TestSupport
import Testing

@testable import FutureRunEngine
@testable import FutureRunModel

/// The kit's own standard inputs (``CommandInput``s FutureProcess does not ship).
@Suite struct KitInputs {
    private func sh(_ line: String) -> Command { Command(["/bin/sh", "-c", line]) }

    @Test func heldOpenInputGivesItsBytesAndNoEndUntilTheCommandExits() {
        var command = sh("head -c 5; echo; timeout 0.3 cat; echo \" cat: $?\"")
        command.input = HeldOpenInput(bytes: Array("hello".utf8))
        let result = command.run().value
        // cat found no end of input: timeout stopped it (124).
        #expect(result.stdout.bytes() == Array("hello\n cat: 124\n".utf8))
        // More than a pipe holds by default travels whole too.
        var large = sh("head -c 300000 | wc -c; timeout 0.2 cat > /dev/null; echo $?")
        large.input = HeldOpenInput(bytes: Array(repeating: 0x61, count: 300_000))
        #expect(String(decoding: large.run().value.stdout.bytes(), as: UTF8.self) == "300000\n124\n")
    }

    @Test func aPipeHandsALongLivedChildWorkOverTimeAndItsEndEndsTheChild() throws {
        let input = try #require(InputPipe())
        var command = sh("while read -r line; do echo \"got $line\"; done; echo end")
        command.input = input
        let run = ProcessEngine.shared.start(command)
        #expect(input.write(Array("one\n".utf8)))
        #expect(eventually { run.stdout.bytes() == Array("got one\n".utf8) }, "the child answers before its input ends")
        #expect(input.write(Array("two\n".utf8)))
        input.close()
        #expect(run.result.value.stdout.bytes() == Array("got one\ngot two\nend\n".utf8))
        #expect(!input.write(Array("late\n".utf8)), "closed")
    }
}
