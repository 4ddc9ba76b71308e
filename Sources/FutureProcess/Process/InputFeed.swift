import Glibc
import _CFutureShims

/// What the engine writes into a child's input pipe as it drains (``OpenedInput/feeding(_:)``):
/// bytes, or a byte range of an open file moved through the kernel. Made on the thread that
/// spawns the child; from then on touched only on the engine's loop thread.
public struct InputFeed {
    private enum Source {
        case bytes([UInt8], written: Int)
        case file(descriptor: Int32, offset: Int64, end: Int64)
    }

    enum Progress {
        /// The pipe is full: write again once it drains.
        case wouldBlock
        /// All of it is written: close the pipe, the child reads its end.
        case done
        /// Its reader is gone (the child closed its input or exited), or writing failed: stop.
        case stopped
    }

    private var source: Source

    /// `bytes`, written as the pipe takes them.
    public static func bytes(_ bytes: [UInt8]) -> InputFeed { InputFeed(source: .bytes(bytes, written: 0)) }

    /// `length` bytes of the open file `descriptor` from `offset` on (fewer if it ends first),
    /// spliced into the pipe. The feed owns the descriptor: it is closed when the feed ends.
    public static func file(descriptor: Int32, offset: Int, length: Int) -> InputFeed {
        InputFeed(source: .file(descriptor: descriptor, offset: Int64(offset), end: Int64(offset) + Int64(max(0, length))))
    }

    private init(source: Source) { self.source = source }

    /// How many bytes it holds in all, to size the pipe.
    var expectedCount: Int {
        switch source {
        case .bytes(let bytes, _): bytes.count
        case .file(_, let offset, let end): Int(end - offset)
        }
    }

    /// Writes into `pipe` (non-blocking) until it is full or all is written. Engine thread.
    mutating func write(to pipe: Int32) -> Progress {
        switch source {
        case .bytes(let bytes, var written):
            defer { source = .bytes(bytes, written: written) }
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { all in
                    Glibc.write(pipe, all.baseAddress! + written, all.count - written)
                }
                if count > 0 {
                    written += count
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return count < 0 && errno == EAGAIN ? .wouldBlock : .stopped
                }
            }
            return .done
        case .file(let descriptor, var offset, let end):
            defer { source = .file(descriptor: descriptor, offset: offset, end: end) }
            while offset < end {
                let count = fc_splice_from_file(descriptor, &offset, pipe, Int(end - offset))
                if count == 0 { return .done }  // the file ends early
                if count < 0 { return errno == EAGAIN ? .wouldBlock : .stopped }
            }
            return .done
        }
    }

    /// Lets go of what it holds (a file range's descriptor). Engine thread, once.
    mutating func close() {
        if case .file(let descriptor, _, _) = source { Glibc.close(descriptor) }
        source = .bytes([], written: 0)
    }
}
