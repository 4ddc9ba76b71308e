extension Duration {
    /// Parses a duration as `--timeout`, `--grace` and `--delay` take it: a number with a unit
    /// (`500ms`, `30s`, `1.5s`, `5m`, `2h`, `1d`), several of them in a row (`1m30s`, `1h2m`), or a
    /// plain number of seconds (`10`, `0.25`). `nil` for anything else, negative values included.
    package static func parse(_ text: String) -> Duration? {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        var total = 0.0
        var index = 0
        var parts = 0
        while index < bytes.count {
            let numberStart = index
            while index < bytes.count, bytes[index] == UInt8(ascii: ".") || (bytes[index] >= 0x30 && bytes[index] <= 0x39) {
                index += 1
            }
            guard index > numberStart, let value = Double(String(decoding: bytes[numberStart..<index], as: UTF8.self))
            else { return nil }
            let unitStart = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "a"), bytes[index] <= UInt8(ascii: "z") { index += 1 }
            let unit = String(decoding: bytes[unitStart..<index], as: UTF8.self)
            parts += 1
            if unit.isEmpty {
                // A bare number is seconds, and only on its own: `1m30` is a typo, not 1m30s.
                guard parts == 1, index == bytes.count else { return nil }
                total = value
                break
            }
            guard let scale = units.first(where: { $0.suffix == unit })?.seconds else { return nil }
            total += value * scale
        }
        guard total.isFinite, total < 1e9 else { return nil }
        // A positive time stays positive (`--timeout 0.0000001ms` is the shortest limit, not none).
        return .nanoseconds(max(total > 0 ? 1 : 0, Int64((total * 1e9).rounded())))
    }

    /// Seconds as a `Double`.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
