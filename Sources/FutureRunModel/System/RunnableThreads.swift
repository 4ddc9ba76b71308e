import Glibc

/// The load as GNU parallel measures it for `--load` (`ps axH -o state,command`): the threads of
/// user processes that run, wait for the CPU or wait for a disk right now (state R or D). Kernel
/// threads are left out (a kernel thread parked in D would hold every job back for ever), and so
/// are futurerun's own threads (GNU parallel subtracts its `ps`).
///
/// Read by walking `/proc/PID/task/TID/stat`: blocks on `/proc` for about a millisecond per few
/// hundred threads; called only with `--load`.
package enum RunnableThreads {
    /// The kernel's `PF_KTHREAD` flag in a task's `stat`.
    private static let kernelThread = 0x0020_0000

    /// The count now; `nil` if `/proc` cannot be read.
    package static func count(excluding own: pid_t = getpid()) -> Int? {
        let proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard proc >= 0 else { return nil }
        defer { close(proc) }
        var count = 0
        for name in Directory.entries(of: proc) {
            guard let pid = pid_t(name), pid != own else { continue }
            guard let process = read("/proc/\(name)/stat"), let parsed = fields(process), !isKernelThread(parsed) else {
                continue
            }
            let tasks = open("/proc/\(name)/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard tasks >= 0 else { continue }
            for task in Directory.entries(of: tasks) {
                if let text = read("/proc/\(name)/task/\(task)/stat"), let parsed = fields(text), isBusy(parsed) { count += 1 }
            }
            close(tasks)
        }
        return count
    }

    /// The fields of a `stat` line after the command's closing `)`: state, ppid, pgrp, session,
    /// tty, tpgid, flags, …
    package static func fields(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 6 ? fields : nil
    }

    static func isKernelThread(_ fields: [Substring]) -> Bool { (Int(fields[6]) ?? 0) & kernelThread != 0 }

    /// Runs or waits for the CPU (R) or a disk (D), as GNU parallel counts.
    static func isBusy(_ fields: [Substring]) -> Bool { fields[0] == "R" || fields[0] == "D" }

    private static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            let length = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            return length > 0 ? String(decoding: buffer[..<length], as: UTF8.self) : nil
        }
    }
}
