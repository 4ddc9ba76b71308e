import Glibc
import _CFutureShims

/// SHA-256 (FIPS 180-4, the engine's `sha256.c`): the cache's keys, its entries' checksums, and
/// the digests of the input files a key covers.
package struct SHA256 {
    private var context = fc_sha256()

    package init() { fc_sha256_init(&context) }

    package mutating func update(_ bytes: some Collection<UInt8>) {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            if let base = buffer.baseAddress { fc_sha256_update(&context, base, buffer.count) }
            return true
        }
        if contiguous == nil { update(Array(bytes)) }
    }

    /// The digest of everything added, as 64 lowercase hexadecimal digits.
    consuming func hexDigest() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        fc_sha256_final(&context, &digest)
        return Self.hex(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The digest of `bytes`.
    package static func digest(_ bytes: some Collection<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }

    /// The digest of the content of the regular file at `path`, read 64 KiB at a time; `nil` if it
    /// cannot be opened or read (errno says why). Blocks on the file.
    package static func digest(ofFileAt path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return hash.hexDigest() }
            hash.update(buffer[0..<count])
        }
    }
}
