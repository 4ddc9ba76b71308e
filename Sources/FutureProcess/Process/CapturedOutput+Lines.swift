import FutureCore

extension CapturedOutput {
    /// The stream's lines as they come, without their newline, the last one even without one; the
    /// sequence ends with the stream. It reads by consuming (``consume(maxCount:)``) and takes the
    /// stream's waker (``setWaker(_:)``): one reader a stream. Never blocks a thread.
    ///
    ///     let run = ProcessEngine.shared.start(.shell("make 2>&1"))
    ///     for await line in run.stdout.lines where line.contains("error") { print(line) }
    public var lines: AsyncStream<String> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let partial = Locked<[UInt8]>([])
            setWaker { [self] in
                // On the engine's thread, after each batch and at the end: whole lines go now.
                var bytes: [UInt8] = []
                while case let chunk = consume(), !chunk.isEmpty { bytes += chunk }
                let ended = isDrained
                let lines = partial.withLock { partial -> [[UInt8]] in
                    partial += bytes
                    var lines = partial.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
                    partial = lines.removeLast()
                    if ended, !partial.isEmpty {
                        lines.append(partial)
                        partial = []
                    }
                    return lines
                }
                for line in lines { continuation.yield(String(decoding: line, as: UTF8.self)) }
                if ended { continuation.finish() }
            }
        }
    }
}
