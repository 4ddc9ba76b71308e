import Glibc

/// A fresh directory under /tmp, removed with what it holds when released.
public final class Scratch {
    public let path: String

    public init() {
        var template = Array("/tmp/futurerun-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            fatalError("cannot make a scratch directory: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    public func write(_ name: String, _ text: String) {
        let file = fopen(self.file(name), "w")!
        fputs(text, file)
        fclose(file)
    }

    public func read(_ name: String) -> String? { readText(file(name)) }

    /// The file's bytes, or `nil` if it cannot be read.
    public func readBytes(_ name: String) -> [UInt8]? { readFile(file(name)) }

    public func exists(_ name: String) -> Bool { access(file(name), F_OK) == 0 }

    /// The names in the directory (or in `folder` inside it), without `.` and `..`.
    public func entries(_ folder: String? = nil) -> [String] {
        guard let directory = opendir(folder.map(file) ?? path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    deinit { _ = system("rm -rf \(quoted(path))") }
}

/// The whole file as text, or `nil` if it cannot be read.
public func readText(_ path: String) -> String? {
    readFile(path).map { String(decoding: $0, as: UTF8.self) }
}

/// The whole file's bytes, or `nil` if it cannot be read.
public func readFile(_ path: String) -> [UInt8]? {
    // "e": close-on-exec, so that a child spawned meanwhile by another test inherits nothing.
    guard let file = fopen(path, "re") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[0..<count] }
    return bytes
}

/// Shell-quotes one word.
public func quoted(_ word: String) -> String { "'" + word.replacing("'", with: #"'\''"#) + "'" }

/// Polls `condition` every 20 ms for up to `seconds`: only against a hang, never to check timing.
public func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
