import FutureCore
import FutureProcess
import Glibc
import Testing

/// The threading rules are checked, not only written: a blocking read on the engine's thread stops
/// the program with a message (debug builds), instead of deadlocking silently.
@Suite struct ThreadingRules {
    @Test func aBlockingReadOnTheEnginesThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            // Inline callbacks of a command's future run on the engine's thread, if registered
            // before it ends: the command sleeps so that they are. The future read there resolves
            // by itself after 5 s, so that a callback run elsewhere cannot hang the test either.
            let later = Future { () -> Int in
                usleep(5_000_000)
                return 1
            }
            Command.shell("sleep 0.3").run().onComplete(on: .inline) { _ in _ = later.value }
            sleep(10)
        }
    }

    @Test func threadsCarryTheirNames() {
        let names = Command.shell("cat /proc/\(getpid())/task/*/comm").run().value
        let text = String(decoding: names.stdout.bytes(), as: UTF8.self)
        #expect(text.contains("futurecore-loop"), "\(text)")
    }
}
