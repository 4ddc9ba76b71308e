// FutureCore beside Swift concurrency on the same work, in one run (make bench-futures): each
// case is timed over many repetitions in interleaved rounds, and the figures are medians of
// nanoseconds per operation, with futures / tasks as ratios.
import FutureCore

let rounds = 5
let clock = ContinuousClock()

/// Nanoseconds per operation of `body`, which performs `operations` of them.
func time(_ operations: Int, _ body: () -> Void) -> Double {
    let elapsed = clock.measure(body)
    return Double(elapsed.components.seconds) * 1e9 / Double(operations)
        + Double(elapsed.components.attoseconds) / 1e9 / Double(operations)
}

/// The same for async work, awaited from a detached task by a blocked caller.
func timeAsync(_ operations: Int, _ body: @escaping @Sendable () async -> Void) -> Double {
    let result = Promise<Double, Never>()
    Task.detached {
        let start = clock.now
        await body()
        let elapsed = clock.now - start
        result.succeed(
            (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(operations))
    }
    return result.future.value
}

let cases: [(name: String, run: () -> Double)] = [
    (
        "promise: complete + value",
        {
            time(100_000) {
                for index in 0..<100_000 {
                    let promise = Promise<Int, Never>()
                    promise.succeed(index)
                    _ = promise.future.value
                }
            }
        }
    ),
    (
        "continuation: resume + await",
        {
            timeAsync(100_000) {
                for index in 0..<100_000 {
                    _ = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                        continuation.resume(returning: index)
                    }
                }
            }
        }
    ),
    ("Future {}.value, one at a time", { time(20_000) { for index in 0..<20_000 { _ = Future { index }.value } } }),
    (
        "Future(on: .shared) {}.value", { time(20_000) { for index in 0..<20_000 { _ = Future(on: .shared) { index }.value } } }
    ),
    ("Task {}.value, one at a time", { timeAsync(20_000) { for index in 0..<20_000 { _ = await Task { index }.value } } }),
    (
        "fan-out of 1,000 on a width-2 JobPool",
        {
            let pool = JobPool(width: 2)
            return time(1_000) { _ = Future.all((0..<1_000).map { index in Future(on: pool) { index } }).value }
        }
    ),
    (
        "TaskGroup of 1,000",
        {
            timeAsync(1_000) {
                await withTaskGroup(of: Int.self) { group in
                    for index in 0..<1_000 { group.addTask { index } }
                    for await _ in group {}
                }
            }
        }
    ),
]

var samples = [[Double]](repeating: [], count: cases.count)
for _ in 0...rounds {  // the first round warms up and is dropped
    for (index, item) in cases.enumerated() { samples[index].append(item.run()) }
}
func median(_ values: [Double]) -> Double {
    let sorted = values.dropFirst().sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
let medians = samples.map(median)
for (index, item) in cases.enumerated() {
    let name = item.name + String(repeating: " ", count: max(1, 40 - item.name.count))
    print(name + String(Int(medians[index].rounded())), "ns an operation")
}
func ratio(_ a: Int, _ b: Int) -> String {
    let value = medians[a] / medians[b]
    return String(Double(Int(value * 100)) / 100)
}
print("promise + value / continuation: \(ratio(0, 1))")
print("Future {}.value / Task {}.value: \(ratio(2, 4))  (goal: within 2x)")
print("Future(on: .shared) {}.value / Task {}.value: \(ratio(3, 4))")
print("fan-out of 1,000 futures / TaskGroup of 1,000: \(ratio(5, 6))")
