import CFutureShims
import Glibc

/// A separate process that outlives this one just long enough to stop its children. It shares a
/// ``GuardianTable`` of the children's process groups with this process and holds the read end of a
/// pipe whose write end only this process holds; when the pipe closes (this process exited or was
/// killed, even by SIGKILL) it sends SIGTERM, then SIGKILL, to every group still in the table.
/// Without it, a `kill -9` of the parent would leave its jobs running.
///
/// The guardian program (see `futurerun --guardian`) gets the pipe as stdin and the table as
/// descriptor 3. Watching and forgetting a child costs an atomic store, from any thread.
final class ProcessGuardian: Sendable {
    private let table: GuardianTable
    /// Kept open for the life of this process: its closing is the guardian's signal.
    private let pipe: Int32

    /// Spawns `arguments` (argv; `arguments[0]` a path) as the guardian, in a process group of its
    /// own, stdout to /dev/null. `nil` if it cannot be spawned.
    init?(arguments: [String], nullDevice: Int32) {
        guard let table = GuardianTable() else { return nil }
        var fds: [Int32] = [-1, -1]
        guard fr_pipe_cloexec(&fds, 0) == 0 else { return nil }
        var signals = sigset_t()
        fr_sigset_empty(&signals)
        fr_sigset_add(&signals, SIGPIPE)
        var pid: pid_t = 0
        let status = withCStrings(arguments.map { Array($0.utf8) }) { argv in
            withCStrings([]) { envp in
                fr_spawn(&pid, argv, envp, nil, fds[0], nullDevice, 2, table.descriptor, &signals)
            }
        }
        close(fds[0])
        guard status == 0 else {
            close(fds[1])
            return nil
        }
        self.table = table
        self.pipe = fds[1]
    }

    /// Guards `group` until ``forget(_:)``; returns the entry to forget (`nil`: not guarded).
    func watch(_ group: pid_t) -> Int32? { table.record(group) }

    func forget(_ entry: Int32) { table.clear(entry) }
}
