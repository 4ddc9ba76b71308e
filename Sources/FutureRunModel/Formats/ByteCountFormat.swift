/// Sizes as people read them, in powers of 1024 as GNU parallel's suffixes count: `512B`, `20K`,
/// `450M`, `1.5G`.
package enum ByteCountFormat {
    package static func format(_ bytes: Int) -> String {
        var value = Double(max(0, bytes))
        for unit in ["B", "K", "M", "G", "T"] {
            if value < 1024 || unit == "T" {
                let rounded = (value * 10).rounded() / 10
                return (rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)") + unit
            }
            value /= 1024
        }
        return "\(bytes)B"
    }
}
