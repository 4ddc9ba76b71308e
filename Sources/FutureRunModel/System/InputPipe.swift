import FutureCore
import FutureProcess
import Glibc
import _CFutureShims

/// A pipe the caller writes a child's standard input into, over time: for a long-lived child that
/// is handed work as it goes (a warm shell, a Slurm slot's worker, the Perl coprocess). As a
/// ``CommandInput``, its read end goes to the child. The child reads the end of input once
/// ``close()`` is called (or this object is gone). One child: its spawn takes the read end.
package final class InputPipe: CommandInput {
    private let ends: Locked<(read: Int32, write: Int32)>

    /// A new pipe (holding up to 1 MiB unread where the system allows); `nil` if none can be made.
    package init?() {
        var fds: [Int32] = [-1, -1]
        guard fc_pipe_for_child_feed(&fds, 1 << 20) == 0 else { return nil }
        ends = Locked((fds[0], fds[1]))
    }

    deinit {
        let (read, write) = ends.withLock { $0 }
        if read >= 0 { Glibc.close(read) }
        if write >= 0 { Glibc.close(write) }
    }

    /// Writes all of `bytes`, waiting while the pipe is full. Returns false once the child's end is
    /// gone (or after ``close()``). Any thread; keep writes smaller than the pipe on the engine's.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        var written = 0
        return ends.withLock { ends in
            guard ends.write >= 0 else { return false }
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.write(ends.write, $0.baseAddress! + written, $0.count - written) }
                if count > 0 {
                    written += count
                } else if count < 0, errno == EINTR {
                    continue
                } else if count < 0, errno == EAGAIN {
                    var ready = pollfd(fd: ends.write, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Ends the input: the child reads its end once it has read what was written.
    package func close() {
        ends.withLock { ends in
            if ends.write >= 0 { Glibc.close(ends.write) }
            ends.write = -1
        }
    }

    /// The read end, for the child (the spawn closes it here); a second child finds it taken (EBADF).
    package func open() throws(InputError) -> OpenedInput {
        let read = ends.withLock { ends in
            defer { ends.read = -1 }
            return ends.read
        }
        guard read >= 0 else { throw InputError(errno: EBADF) }
        return OpenedInput(child: read)
    }
}
