import FutureCore
import Glibc
import _CFutureShims

/// Pipes for children's output, made ahead of need. The engine's thread refills the reserve at the
/// end of its turn, once the children that the turn's events started have been spawned: a job
/// ending and the next one starting then cost no `pipe2` and no `fcntl` in between.
///
/// Any thread takes (a pipe is made on the spot when the reserve is empty); the engine's thread
/// refills. Each pipe serves one child: its read end is ours (non-blocking), its write end the
/// child's output; both are close-on-exec.
final class PipeReserve: Sendable {
    private let pipes = Locked<[(read: Int32, write: Int32)]>([])
    private let size: Int

    /// - Parameter size: how many pipes to keep ready (two serve one child).
    init(size: Int) {
        self.size = size
    }

    /// A pipe from the reserve, or a new one; `nil` (with `errno` set) if none can be made.
    func take() -> (read: Int32, write: Int32)? {
        if let pipe = pipes.withLock({ $0.popLast() }) { return pipe }
        return Self.make()
    }

    /// Makes pipes until the reserve is full, or the system refuses one (then the next `take`
    /// tries again and reports the error). Never blocks.
    func refill() {
        while pipes.withLock({ $0.count < size }), let pipe = Self.make() {
            pipes.withLock { $0.append(pipe) }
        }
    }

    private static func make() -> (read: Int32, write: Int32)? {
        var fds: (Int32, Int32) = (-1, -1)
        let made = withUnsafeMutableBytes(of: &fds) {
            fc_pipe_for_child_output($0.baseAddress!.assumingMemoryBound(to: Int32.self))
        }
        return made == 0 ? (fds.0, fds.1) : nil
    }
}
