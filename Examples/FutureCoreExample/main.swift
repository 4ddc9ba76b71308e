// A FutureCore program as a user would write it: futures from closures and from commands,
// combinators, a bounded pool, and the async bridge. `futurecore-example blocking-in-a-callback`
// shows instead what a blocking read in a command's callback does: it stops with a message.
import FutureCore
import FutureProcess
import Glibc

if CommandLine.arguments.dropFirst().first == "blocking-in-a-callback" {
    // An `.inline` callback runs on the engine's thread, which also resolves `later`: waiting there
    // for it would hang for ever, so FutureCore stops the program and says why. (A callback on the
    // default executor, ``JobPool/shared``, may wait: it runs on a pool thread.)
    // `gate` ends after its callback is registered, so the callback runs on the engine's thread.
    let later = Command.shell("sleep 10; echo later").run()
    let gate = Command.shell("sleep 0.5").run()
    let done = Promise<String, Never>()
    gate.onSuccess(on: .inline) { _ in done.succeed(String(decoding: later.value.stdout.bytes(), as: UTF8.self)) }
    print(done.future.value)
}

// The seed's spelling: start work, do something else, read the value when needed.
let greeting: Future<String?> = Future { "hello" }
let answer = Future(6 * 7)
print(greeting.value ?? "nil", answer.value)

// Commands are futures of their results; run two at once and combine them.
let kernel = Command.shell("uname -s").run()
let user = Command.shell("id -un").run()
let both = kernel.zip(user).map { kernel, user in
    String(decoding: kernel.stdout.bytes() + user.stdout.bytes(), as: UTF8.self)
}
print("ran:", both.value.split(separator: "\n").joined(separator: " "))

// At most two at a time; results in input order.
let pool = CommandPool(width: 2)
let sleeps = (1...4).map { index in pool.run(.shell("sleep 0.1; echo \(index)")) }
let outputs = Future.all(sleeps).value.map { String(decoding: $0.stdout.bytes(), as: UTF8.self) }
print("pool:", outputs.joined().split(separator: "\n").joined(separator: ","))

// A typed failure, recovered.
enum LookupError: Error { case missing }
let lookup = Eventual<Int, LookupError> { () throws(LookupError) -> Int in throw .missing }
print("recovered:", lookup.recover { _ in -1 }.value)

// Work that waits for work: package starts only once build and lint have succeeded, without owning
// them (cancelling package would not cancel build). `after` hands over their outcomes, in order.
let build = Command.shell("echo built").run()
let lint = Command.shell("echo linted").run()
let package = Future<String>.after([build, lint]) { outcomes in
    let ready = outcomes.allSatisfy { $0.get().succeeded }
    return ready
        ? Command.shell("echo packaged").run().map { String(decoding: $0.stdout.bytes(), as: UTF8.self) } : Future("skipped")
} ifCancelled: {
    .success("cancelled")
}
print("graph:", package.value, terminator: "")

// Every outcome, failures included, never stopping at the first.
let checks = [Command.shell("exit 0").run(), Command.shell("exit 3").run()]
print("settled:", Future.allSettled(checks).value.map { "\($0.get().status)" }.joined(separator: " "))

// Waiting for one of none is an error to handle, not a hang.
let none: [ThrowingFuture<Int>] = []
print("none:", (try? ThrowingFuture.any(none).value).map(String.init) ?? "\(FutureError.noFutures)")

// A delay as a future: no thread sleeps for it.
print("after:", Future.after(.milliseconds(50)).map { "50ms later" }.value)

// Outcomes as they come, and in input order, from async code; a command's output line by line.
let racers: [Future<String>] = [
    Future(on: .blocking) {
        usleep(80_000)
        return "slow"
    },
    Future { "fast" },
]
@Sendable func text(_ result: CommandResult) -> String {
    String(decoding: result.stdout.bytes().dropLast(), as: UTF8.self)
}
let report = Future<String>(awaiting: {
    var arrived: [String] = []
    for await outcome in Future.completions(of: racers) { arrived.append(outcome.get()) }
    var ordered: [String] = []
    for await outcome in Future.results(of: racers) { ordered.append(outcome.get()) }
    // A pool's commands as they end, and in their order.
    let twoAtOnce = CommandPool(width: 2)
    let commands: [Command] = [.shell("sleep 0.1; echo slow"), .shell("echo fast")]
    for await result in twoAtOnce.completions(of: commands) { arrived.append(text(result)) }
    for await result in twoAtOnce.results(of: commands) { ordered.append(text(result)) }
    var lines: [String] = []
    for await line in await Command.shell("printf 'one\\ntwo\\n'").run().get().stdout.lines { lines.append(line) }
    // Cancelling the task that awaits `get()` cancels the future: the command is stopped.
    let sleeper = Command.shell("sleep 30").run()
    let waiting = Task { await sleeper.get().status }
    waiting.cancel()
    return "\(arrived) \(ordered) \(lines) \(await waiting.value)"
})
print("async:", report.value)
