/// How much memory a job may still take here: the machine's `MemAvailable`, and the headroom of
/// every memory cgroup from futurerun's own up to the hierarchy's root (cgroup v2: `memory.max` −
/// `memory.current`; v1: `memory.limit_in_bytes` − `memory.usage_in_bytes`), so that the limits of
/// containers, CI jobs and systemd slices count as the machine's do. Read with ``read()``; the
/// rest is values, tested against recorded files.
package struct MemoryReadings: Equatable {
    /// One cgroup level: its limit (`nil`: none) and what it uses now, in bytes.
    package struct Level: Equatable {
        package var limit: Int?
        package var usage: Int
    }

    /// `MemAvailable` and `MemTotal`, in bytes.
    var machineAvailable: Int
    var machineTotal: Int
    /// From futurerun's cgroup up.
    var levels: [Level] = []

    /// The memory a job may still take: the least of the machine's and every level's headroom.
    package var available: Int {
        levels.compactMap { level in level.limit.map { max(0, $0 - level.usage) } }.reduce(machineAvailable, min)
    }

    /// The most memory there could ever be: the machine's, or the tightest limit above.
    package var total: Int { levels.compactMap(\.limit).reduce(machineTotal, min) }

    /// `MemAvailable` and `MemTotal` of `/proc/meminfo`'s text, in bytes (the other lines are not
    /// parsed: this is read at every job's end).
    static func meminfo(_ text: String) -> (available: Int, total: Int)? {
        func kilobytes(_ key: String) -> Int? {
            guard let found = text.utf8.firstRange(of: key.utf8) else { return nil }
            let digits = text.utf8[found.upperBound...].drop { $0 == 0x20 }.prefix { (0x30...0x39).contains($0) }
            return Int(Substring(digits))
        }
        guard let available = kilobytes("MemAvailable:"), let total = kilobytes("MemTotal:") else { return nil }
        return (available * 1024, total * 1024)
    }

    /// The directories of futurerun's memory cgroup, its own first, then each parent up to the
    /// mount: from `/proc/self/cgroup` and `/proc/self/mountinfo`. Version 1's memory controller if
    /// it is mounted, else version 2's hierarchy.
    static func cgroupDirectories(cgroup: String, mountinfo: String) -> [(path: String, version: Int)] {
        var mounts: [(point: String, root: String, version: Int)] = []
        for line in mountinfo.split(separator: "\n") {
            let halves = line.split(separator: " - ", maxSplits: 1)
            guard halves.count == 2 else { continue }
            let fields = halves[0].split(separator: " ")
            let after = halves[1].split(separator: " ")
            guard fields.count >= 5, after.count >= 3 else { continue }
            if after[0] == "cgroup", after[2].split(separator: ",").contains("memory") {
                mounts.insert((String(fields[4]), String(fields[3]), 1), at: 0)
            } else if after[0] == "cgroup2" {
                mounts.append((String(fields[4]), String(fields[3]), 2))
            }
        }
        for mount in mounts {
            // v1: "4:memory:/path"; v2: "0::/path".
            let entry = cgroup.split(separator: "\n").first { line in
                let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                return parts.count == 3
                    && (mount.version == 1 ? parts[1].split(separator: ",").contains("memory") : parts[1].isEmpty)
            }
            guard let entry else { continue }
            var relative = String(entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)[2])
            if mount.root != "/", relative.hasPrefix(mount.root) { relative = String(relative.dropFirst(mount.root.count)) }
            var parts = relative.split(separator: "/").map(String.init)
            var directories: [(String, Int)] = []
            while true {
                directories.append((([mount.point] + parts).joined(separator: "/"), mount.version))
                guard !parts.isEmpty else { break }
                parts.removeLast()
            }
            return directories
        }
        return []
    }

    /// A level's two files, by cgroup version: what it uses and its limit.
    static func fileNames(version: Int) -> (usage: String, limit: String) {
        version == 2 ? ("memory.current", "memory.max") : ("memory.usage_in_bytes", "memory.limit_in_bytes")
    }

    /// One level from its directory's files: `read(name)` is a file's text, `nil` if missing.
    static func level(version: Int, read: (String) -> String?) -> Level? {
        func number(_ name: String) -> Int? { read(name).flatMap { Int($0.filter { !$0.isWhitespace }) } }
        let names = fileNames(version: version)
        guard let usage = number(names.usage) else { return nil }
        // "max", or a limit this large, is none.
        return Level(limit: number(names.limit).flatMap { $0 < 1 << 60 ? $0 : nil }, usage: usage)
    }

    /// Where futurerun's readings come from: `/proc/meminfo` and its cgroups' files, found and
    /// opened once, read again at each reading (``ProcFile``).
    package final class Source: Sendable {
        private let meminfo: ProcFile?
        /// Each level's version and open files, by name.
        private let levels: [(version: Int, files: [String: ProcFile])]

        package init(directories: [(path: String, version: Int)]) {
            meminfo = ProcFile("/proc/meminfo")
            levels = directories.map { directory, version in
                let names = MemoryReadings.fileNames(version: version)
                let files = [names.usage, names.limit].compactMap { name in ProcFile(directory + "/" + name).map { (name, $0) } }
                return (version, Dictionary(uniqueKeysWithValues: files))
            }
        }

        /// This process's cgroups, from `/proc/self`.
        package static func current() -> Source {
            Source(
                directories: cgroupDirectories(
                    cgroup: TextFile.read("/proc/self/cgroup") ?? "", mountinfo: TextFile.read("/proc/self/mountinfo") ?? ""))
        }

        /// Now; `nil` where `/proc/meminfo` cannot be read. Never blocks for long: a few `pread`s.
        package func read() -> MemoryReadings? {
            guard let (available, total) = meminfo?.read().flatMap(MemoryReadings.meminfo) else { return nil }
            var readings = MemoryReadings(machineAvailable: available, machineTotal: total)
            for (version, files) in levels {
                if let level = MemoryReadings.level(version: version, read: { files[$0]?.read() }) {
                    readings.levels.append(level)
                }
            }
            return readings
        }
    }
}
