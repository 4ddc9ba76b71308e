/// Durations as people read them, in a fixed width per range: `870ms`, `3.21s`, `59.99s`, `2m03s`,
/// `1h02m`.
package enum DurationFormat {
    package static func format(_ duration: Duration) -> String {
        let seconds = max(0, duration.seconds)
        if seconds < 1 {
            return "\(Int((seconds * 1000).rounded(.down)))ms"
        }
        if seconds < 60 {
            let hundredths = Int((seconds * 100).rounded(.down))
            let fraction = hundredths % 100
            return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)s"
        }
        let whole = Int(seconds.rounded(.down))
        if whole < 3600 {
            return "\(whole / 60)m\(pad(whole % 60))s"
        }
        return "\(whole / 3600)h\(pad(whole / 60 % 60))m"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
