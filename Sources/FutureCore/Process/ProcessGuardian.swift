import CFutureShims
import Glibc
import Synchronization

/// A separate process that outlives this one just long enough to stop its children: it is told
/// each child's process group as it starts and ends, over a pipe, and when the pipe closes (this
/// process exited or was killed, even by SIGKILL) it sends SIGTERM, then SIGKILL, to every group
/// still listed. Without it, a `kill -9` of the parent would leave its jobs running.
///
/// The guardian program reads lines `+PGID` / `-PGID` from stdin (see `futurerun --guardian`).
/// Records are written from the engine's thread and the starting threads; writes are small
/// (atomic on a pipe) and never block for long: the guardian reads as fast as they come.
final class ProcessGuardian: Sendable {
    private let pipe: Int32

    /// Spawns `arguments` (argv; `arguments[0]` a path) as the guardian, in a process group of its
    /// own, stdin from a pipe whose write end only this process holds, stdout to /dev/null.
    /// `nil` if it cannot be spawned.
    init?(arguments: [String], nullDevice: Int32) {
        var fds: [Int32] = [-1, -1]
        guard fr_pipe_cloexec(&fds, 0) == 0 else { return nil }
        var signals = sigset_t()
        fr_sigset_empty(&signals)
        fr_sigset_add(&signals, SIGPIPE)
        var pid: pid_t = 0
        let status = withCStrings(arguments.map { Array($0.utf8) }) { argv in
            withCStrings([]) { envp in
                fr_spawn(&pid, argv, envp, nil, fds[0], nullDevice, 2, &signals)
            }
        }
        close(fds[0])
        guard status == 0 else {
            close(fds[1])
            return nil
        }
        pipe = fds[1]
    }

    func watch(_ group: pid_t) { send("+\(group)\n") }
    func forget(_ group: pid_t) { send("-\(group)\n") }

    private func send(_ record: String) {
        var bytes = Array(record.utf8)
        while true {
            let written = write(pipe, &bytes, bytes.count)
            if written >= 0 || errno != EINTR { return }
        }
    }
}
