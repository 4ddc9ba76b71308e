import Glibc
import TestSupport

/// Reads of `/proc` for checks on real processes.
enum Proc {
    /// The entries of `directory` whose names are numbers (processes, threads, descriptors).
    static func numberedEntries(of directory: String) -> [Int] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let number = Int(name) { numbers.append(number) }
        }
        return numbers
    }

    static func pids() -> [Int32] { numberedEntries(of: "/proc").map { Int32($0) } }

    /// Thread ids of this process.
    static func threads() -> [Int] { numberedEntries(of: "/proc/self/task") }

    static func read(_ path: String) -> String? { readText(path) }

    /// State letter, parent and process group of `pid`.
    static func stat(_ pid: Int32) -> (state: Character, parent: Int32, group: Int32)? {
        guard let text = read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 3, let parent = Int32(fields[1]), let group = Int32(fields[2]) else { return nil }
        return (fields[0].first!, parent, group)
    }

    static func zombieChildren() -> [Int32] {
        let me = getpid()
        return pids().filter { pid in stat(pid).map { $0.parent == me && $0.state == "Z" } ?? false }
    }

    static func descriptorCount() -> Int { descriptors().count }

    static func descriptors() -> [Int] { numberedEntries(of: "/proc/self/fd") }

    /// Descriptors of this process without O_CLOEXEC, other than 0-2.
    static func inheritableDescriptors() -> [Int] {
        descriptors().filter { fd in fd > 2 && fcntl(Int32(fd), F_GETFD) >= 0 && fcntl(Int32(fd), F_GETFD) & FD_CLOEXEC == 0 }
    }

    static func residentBytes() -> Int {
        guard let status = read("/proc/self/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kib * 1024
    }
}
