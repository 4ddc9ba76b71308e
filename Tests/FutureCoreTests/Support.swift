import Glibc

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

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

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

/// A fresh directory under /tmp, removed (with what it holds) when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/futurecore-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXFailure(code: errno) }
        path = String(cString: made)
    }

    func entries() throws -> [String] {
        guard let dir = opendir(path) else { throw POSIXFailure(code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    deinit {
        _ = system("rm -rf '\(path)'")
    }
}

struct POSIXFailure: Error { let code: Int32 }
