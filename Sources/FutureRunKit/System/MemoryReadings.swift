/// How much memory a job may still take here: the machine's `MemAvailable`, and the headroom of
/// every memory cgroup from futurerun's own up to the hierarchy's root (cgroup v2: `memory.max` −
/// `memory.current`; v1: `memory.limit_in_bytes` − `memory.usage_in_bytes`), so that the limits of
/// containers, CI jobs and systemd slices count as the machine's do. Read with ``read()``; the
/// rest is values, tested against recorded files.
struct MemoryReadings: Equatable {
    /// One cgroup level: its limit (`nil`: none) and what it uses now, in bytes.
    struct Level: Equatable {
        var limit: Int?
        var usage: Int
    }

    /// `MemAvailable` and `MemTotal`, in bytes.
    var machineAvailable: Int
    var machineTotal: Int
    /// From futurerun's cgroup up.
    var levels: [Level] = []

    /// The memory a job may still take: the least of the machine's and every level's headroom.
    var available: Int {
        levels.compactMap { level in level.limit.map { max(0, $0 - level.usage) } }.reduce(machineAvailable, min)
    }

    /// The most memory there could ever be: the machine's, or the tightest limit above.
    var total: Int { levels.compactMap(\.limit).reduce(machineTotal, min) }

    /// `MemAvailable` and `MemTotal` of `/proc/meminfo`'s text, in bytes.
    static func meminfo(_ text: String) -> (available: Int, total: Int)? {
        var values: [Substring: Int] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count >= 2, let kilobytes = Int(words[1]) else { continue }
            values[words[0].dropLast()] = kilobytes * 1024
        }
        guard let available = values["MemAvailable"], let total = values["MemTotal"] else { return nil }
        return (available, total)
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

    /// One level from its directory's files: `read(name)` is a file's text, `nil` if missing.
    static func level(version: Int, read: (String) -> String?) -> Level? {
        func number(_ name: String) -> Int? { read(name).flatMap { Int($0.filter { !$0.isWhitespace }) } }
        if version == 2 {
            guard let usage = number("memory.current") else { return nil }
            // "max", or a limit this large, is none.
            return Level(limit: number("memory.max").flatMap { $0 < 1 << 60 ? $0 : nil }, usage: usage)
        }
        guard let usage = number("memory.usage_in_bytes") else { return nil }
        return Level(limit: number("memory.limit_in_bytes").flatMap { $0 < 1 << 60 ? $0 : nil }, usage: usage)
    }

    /// Where futurerun's readings come from: its cgroup's directories, found once.
    struct Source: Sendable {
        let directories: [(path: String, version: Int)]

        /// This process's cgroups, from `/proc/self`.
        static func current() -> Source {
            Source(
                directories: cgroupDirectories(
                    cgroup: TextFile.read("/proc/self/cgroup") ?? "", mountinfo: TextFile.read("/proc/self/mountinfo") ?? ""))
        }

        /// Now: `/proc/meminfo` and each level's two files; `nil` where `/proc/meminfo` cannot be read.
        func read() -> MemoryReadings? {
            guard let (available, total) = TextFile.read("/proc/meminfo").flatMap(meminfo) else { return nil }
            var readings = MemoryReadings(machineAvailable: available, machineTotal: total)
            for (directory, version) in directories {
                if let level = level(version: version, read: { TextFile.read(directory + "/" + $0) }) {
                    readings.levels.append(level)
                }
            }
            return readings
        }
    }
}
