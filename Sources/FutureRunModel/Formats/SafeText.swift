/// Text from jobs and users made safe to print on a terminal.
package enum SafeText {
    /// `text` with control characters (escape sequences included) shown as `^X` / `\u{..}`, so a
    /// job name or argument can never drive the terminal.
    package static func sanitize(_ text: String) -> String {
        var safe = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x20: safe += "^" + String(UnicodeScalar(UInt8(scalar.value) + 0x40))
            case 0x7F: safe += "^?"
            case 0x80..<0xA0: safe += "\\u{\(String(scalar.value, radix: 16))}"
            default: safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }
}
