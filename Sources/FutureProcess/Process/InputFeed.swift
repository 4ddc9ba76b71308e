import Glibc
import _CFutureShims

/// The rest of a child's input that the engine writes into the child's pipe as it drains
/// (``Command/Input/bytes(_:)``, ``Command/Input/fileRange(path:offset:length:)``). Made on the
/// thread that spawns the child; from then on touched only on the engine's loop thread.
struct InputFeed {
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

    /// The feed of `input`, if the engine writes it; `nil` for inputs written otherwise. Throws the
    /// errno when a file range's file cannot be opened.
    init?(_ input: Command.Input) throws(InputFeedError) {
        switch input {
        case .nullDevice, .bytesThenHeldOpen, .pipe: return nil
        case .bytes(let bytes): source = .bytes(bytes, written: 0)
        case .fileRange(let path, let offset, let length):
            let descriptor = (path + [0]).withUnsafeBufferPointer { path in
                path.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) {
                    open($0, O_RDONLY | O_CLOEXEC)
                }
            }
            guard descriptor >= 0 else { throw InputFeedError(errno: errno) }
            source = .file(descriptor: descriptor, offset: Int64(offset), end: Int64(offset) + Int64(max(0, length)))
        }
    }

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

/// A file range's file could not be opened.
struct InputFeedError: Error {
    let errno: Int32
}
