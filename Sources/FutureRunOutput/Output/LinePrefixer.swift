import FutureRunEngine
import FutureRunModel

/// Puts a prefix before every line of a byte stream fed in chunks (`--tag`), never adding or
/// removing any other byte.
package struct LinePrefixer {
    private let prefix: [UInt8]
    private var atLineStart = true

    package init(prefix: [UInt8]) { self.prefix = prefix }

    package mutating func process(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + prefix.count)
        for byte in bytes {
            if atLineStart { out += prefix }
            out.append(byte)
            atLineStart = byte == 0x0A
        }
        return out
    }
}
