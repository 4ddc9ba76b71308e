import FutureProcess
import FutureRunModel

/// What the cache keeps of a job that ran: its exit status (or the signal that ended it), its
/// stdout and stderr, how long it took then, and the manifest its key is the hash of (for
/// `--explain`, later). One file each, checked by a SHA-256 of the whole:
/// an entry cut short (a crash while it was written, a full disk) or changed is never trusted.
///
/// A plain value: ``encoded(key:)`` and ``init(decoding:key:)`` are all there is to the format.
package struct CacheEntry: Sendable, Equatable {
    /// `.exited` or `.signaled`: the ends worth replaying.
    package var status: TerminationStatus
    package var stdout: [UInt8]
    package var stderr: [UInt8]
    /// How long the job took when it ran.
    package var wall: Double
    /// ``CacheManifest/text``.
    package var manifest: String

    package init(status: TerminationStatus, stdout: [UInt8], stderr: [UInt8], wall: Double, manifest: String = "") {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.wall = wall
        self.manifest = manifest
    }

    private static let magic = "futurerun-cache-entry 1"
    /// `\nsha256 ` and 64 hex digits and `\n`.
    private static let trailerCount = 73

    /// The entry's file: a header of `name value` lines (`key`, `status exit 0`/`status signal 9`,
    /// `wall`, `stdout`, `stderr` and `manifest` byte counts), an empty line, the stdout, stderr
    /// and manifest bytes, and `sha256` of all that before.
    package func encoded(key: String) -> [UInt8] {
        let ending: String =
            switch status {
            case .signaled(let signal): "signal \(signal)"
            case .exited(let code): "exit \(code)"
            default: "exit 1"
            }
        let header =
            "\(Self.magic)\nkey \(key)\nstatus \(ending)\nwall \(String(format3: wall))\n"
            + "stdout \(stdout.count)\nstderr \(stderr.count)\nmanifest \(manifest.utf8.count)\n\n"
        var bytes = Array(header.utf8)
        bytes += stdout
        bytes += stderr
        bytes += Array(manifest.utf8)
        bytes += Array("\nsha256 \(SHA256.digest(bytes))\n".utf8)
        return bytes
    }

    /// Reads an entry's file; `nil` unless it is whole, unchanged and for `key`.
    package init?(decoding bytes: [UInt8], key: String) {
        guard bytes.count > Self.trailerCount else { return nil }
        let body = bytes[..<(bytes.count - Self.trailerCount)]
        let trailer = String(decoding: bytes[(bytes.count - Self.trailerCount)...], as: UTF8.self)
        guard trailer == "\nsha256 \(SHA256.digest(body))\n" else { return nil }
        guard let blank = body.indices.first(where: { body[$0] == 0x0A && $0 + 1 < body.endIndex && body[$0 + 1] == 0x0A })
        else { return nil }
        var fields: [String: String] = [:]
        let header = String(decoding: body[..<blank], as: UTF8.self).split(separator: "\n")
        guard header.first == Self.magic[...] else { return nil }
        for line in header.dropFirst() {
            guard let space = line.firstIndex(of: " ") else { return nil }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        guard fields["key"] == key, let wall = fields["wall"].flatMap(Double.init),
            let stdoutCount = fields["stdout"].flatMap(Int.init), let stderrCount = fields["stderr"].flatMap(Int.init),
            let manifestCount = fields["manifest"].flatMap(Int.init),
            let ending = fields["status"]?.split(separator: " "), ending.count == 2, let number = Int32(ending[1])
        else { return nil }
        let start = blank + 2
        guard stdoutCount >= 0, stderrCount >= 0, manifestCount >= 0,
            body.endIndex - start == stdoutCount + stderrCount + manifestCount
        else { return nil }
        switch ending[0] {
        case "exit": status = .exited(number)
        case "signal": status = .signaled(number)
        default: return nil
        }
        stdout = Array(body[start..<(start + stdoutCount)])
        stderr = Array(body[(start + stdoutCount)..<(start + stdoutCount + stderrCount)])
        manifest = String(decoding: body[(start + stdoutCount + stderrCount)...], as: UTF8.self)
        self.wall = wall
    }
}
