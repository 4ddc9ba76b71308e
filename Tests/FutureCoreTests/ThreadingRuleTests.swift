import FutureCore
import Glibc
import Testing

/// The threading rules are checked, not only written: a blocking read on the engine's thread stops
/// the program with a message (debug builds), instead of deadlocking silently.
@Suite struct ThreadingRules {
    @Test func aBlockingReadOnTheEnginesThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let never = Promise<Int, Never>()
            // Inline callbacks of a command's future run on the engine's thread.
            Command.shell("true").run().onComplete { _ in _ = never.future.value }
            sleep(10)
        }
    }

    @Test func threadsCarryTheirNames() {
        let names = Command.shell("cat /proc/\(getpid())/task/*/comm").run().value
        let text = String(decoding: names.stdout.bytes(), as: UTF8.self)
        #expect(text.contains("futurecore-loop"), "\(text)")
    }
}
