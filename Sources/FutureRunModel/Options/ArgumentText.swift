/// Command-line words as text, without losing a byte. A word is UTF-8 text almost always, but a
/// file name need not be: each byte that is not part of valid UTF-8 is kept as one private-use
/// scalar, U+10FF00 plus the byte (as Python's `surrogateescape` keeps it), so that options stay
/// `String`s through the parser and a path reaches the system as the very bytes it was given
/// (``Swift/String/systemPath``). Shown to the user, such a byte is U+FFFD.
package enum ArgumentText {
    private static let base: UInt32 = 0x10_FF00

    /// `bytes` as text, each byte of an invalid sequence kept (see above).
    package static func decode(_ bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                text.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] { text.unicodeScalars.append(Unicode.Scalar(base + UInt32(byte))!) }
                offset += length
            case .emptyInput:
                return text
            }
        }
    }

    /// The bytes `text` came from (``decode(_:)``).
    package static func bytes(_ text: String) -> [UInt8] {
        guard text.unicodeScalars.contains(where: isKeptByte) else { return Array(text.utf8) }
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            if isKeptByte(scalar) { bytes.append(UInt8(scalar.value - base)) } else { bytes += Array(String(scalar).utf8) }
        }
        return bytes
    }

    /// `text` for the user: each kept byte as U+FFFD.
    package static func display(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isKeptByte) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isKeptByte($0) ? "\u{FFFD}" : $0 }))
    }

    private static func isKeptByte(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= base + 0x80 && scalar.value <= base + 0xFF
    }
}

extension String {
    /// The path as the system takes it: the bytes it was given on the command line (``ArgumentText``),
    /// NUL-terminated, for `open`, `stat` and the like.
    package var systemPath: [CChar] { ArgumentText.bytes(self).map { CChar(bitPattern: $0) } + [0] }
}
