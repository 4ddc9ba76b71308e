import FutureCore
import Glibc
import _CFutureShims

/// A separate process that outlives this one just long enough to stop its children. It runs in
/// this process's memory (`clone` with `CLONE_VM`: no exec, no second program start, no page
/// tables copied), reads the ``GuardianTable`` of the children's process groups, and holds the
/// read end of a pipe whose write end only this process holds. When the pipe closes (this process exited or was
/// killed, even by SIGKILL) it sends SIGTERM, then after ``grace`` SIGKILL, to every group still in
/// the table. Without it, a `kill -9` of the parent would leave its jobs running.
///
/// Watching and forgetting a child costs an atomic store, from any thread.
final class ProcessGuardian: Sendable {
    /// Between the guardian's SIGTERM and SIGKILL.
    static let grace: Duration = .milliseconds(300)

    /// The guardian's process id.
    let pid: pid_t
    private let table: GuardianTable
    /// A directory the guardian removes after stopping the groups: a page of shared memory, written
    /// whole or not at all (``fc_store_shared_path``), one writer at a time.
    private let directory: Locked<UnsafeMutablePointer<CChar>>
    private static let directoryCapacity = 4096
    /// Open as long as this object lives (the engine's: as long as the process): its closing is
    /// the guardian's signal.
    private let pipe: Int32

    /// Starts the guardian. `nil` if it cannot be started.
    init?() {
        guard let table = GuardianTable(),
            let page = fc_map_shared_anonymous(Self.directoryCapacity).map({
                UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self)
            })
        else { return nil }
        var fds: [Int32] = [-1, -1]
        guard fc_pipe_cloexec(&fds, 0) == 0 else { return nil }
        let milliseconds = Int32(Self.grace / .milliseconds(1))
        let pid = fc_start_guardian(fds[0], table.words, Int32(table.capacity), milliseconds, page)
        close(fds[0])
        guard pid > 0 else {
            close(fds[1])
            return nil
        }
        self.pid = pid
        self.table = table
        self.directory = Locked(page)
        self.pipe = fds[1]
    }

    deinit { close(pipe) }

    /// Guards `group` until ``forget(_:)``; returns the entry to forget (`nil`: not guarded).
    func watch(_ group: pid_t) -> Int32? { table.record(group) }

    func forget(_ entry: Int32) { table.clear(entry) }

    /// Has the guardian empty and remove `path` (a private directory of files: sockets, say) after
    /// stopping the groups, should this process die first; `nil`: no directory. Any thread.
    func removeAtExit(_ path: String?) {
        directory.withLock { page in
            if let path {
                fc_store_shared_path(page, Self.directoryCapacity, path)
            } else {
                fc_store_shared_path(page, Self.directoryCapacity, nil)
            }
        }
    }
}
