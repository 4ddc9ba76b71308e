import FutureCore
import Glibc
import _CFutureShims

/// How many CPUs this process may really use: its affinity mask, lowered by a cgroup CPU quota
/// (v2 `cpu.max`, v1 `cpu.cfs_quota_us`), not the host's core count. A good width for a
/// ``JobPool`` or a ``CommandPool`` of CPU-bound work.
package enum CPUCount {
    /// Reads the mask and the quota now (a few small file reads); never less than 1.
    package static func usable() -> Int {
        var count = Int(fc_affinity_cpus())
        if count <= 0 { count = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
        if let quota = cgroupQuota() { count = min(count, quota) }
        return max(1, count)
    }

    /// CPUs allowed by the cgroup quota, rounded up; `nil` when there is none.
    static func cgroupQuota() -> Int? {
        if let line = firstLine("/sys/fs/cgroup/cpu.max") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), period > 0 {
                return Int((quota / period).rounded(.up))
            }
            return nil
        }
        if let quotaText = firstLine("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), let quota = Double(quotaText), quota > 0,
            let periodText = firstLine("/sys/fs/cgroup/cpu/cpu.cfs_period_us"), let period = Double(periodText), period > 0
        {
            return Int((quota / period).rounded(.up))
        }
        return nil
    }

    private static func firstLine(_ path: String) -> String? {
        guard let file = fopen(path, "re") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.trimmingSuffix("\n")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
