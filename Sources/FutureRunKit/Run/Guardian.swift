import FutureCore
import Glibc

/// `futurerun --guardian`: the process that stops futurerun's jobs if futurerun itself dies
/// without doing so (SIGKILL, a crash). It waits for its stdin, a pipe only futurerun writes to, to
/// close; then it sends SIGTERM to every group still in the table futurerun shares with it on
/// descriptor 3 (a ``GuardianTable``), waits 300 ms, sends SIGKILL, and exits. When futurerun ends
/// normally the table is empty and it just exits.
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
        guard let table = GuardianTable(mapping: 3) else { return 1 }
        // Nothing is written to the pipe: the read returns at its end, when futurerun is gone.
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count == 0 || (count < 0 && errno != EINTR) { break }
        }
        let groups = table.groups
        guard !groups.isEmpty else { return 0 }
        for group in groups { kill(-group, SIGTERM) }
        usleep(300_000)
        for group in groups { kill(-group, SIGKILL) }
        return 0
    }
}
