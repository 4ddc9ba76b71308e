import FutureCore
import Glibc

/// `futurerun --guardian`: the process that stops futurerun's jobs if futurerun itself dies
/// without doing so (SIGKILL, a crash). It reads `+PGID` / `-PGID` lines on stdin; when stdin
/// closes, it sends SIGTERM to every group still listed, waits 300 ms, sends SIGKILL, and exits.
/// When futurerun ends normally nothing is listed any more and it just exits.
public enum Guardian {
    public static let flag = "--guardian"

    /// How futurerun starts its guardian: itself, with ``flag``.
    public static func arguments() -> [String]? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return [path, flag]
    }

    public static func run() -> Int32 {
        let reader = LineReader(descriptor: 0, nullSeparated: false)
        var groups = Set<pid_t>()
        while case .line(let line)? = reader.next() {
            guard let sign = line.first, let group = pid_t(String(decoding: line.dropFirst(), as: UTF8.self)), group > 1 else { continue }
            if sign == UInt8(ascii: "+") { groups.insert(group) } else { groups.remove(group) }
        }
        guard !groups.isEmpty else { return 0 }
        for group in groups { kill(-group, SIGTERM) }
        usleep(300_000)
        for group in groups { kill(-group, SIGKILL) }
        return 0
    }
}
