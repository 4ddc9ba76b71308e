import FutureRunEngine
import FutureRunModel

/// The last lines of a job's output (`--quiet-success` replays them at the end; JUnit reports
/// them): at most `limit` lines, each cut to 1,000 bytes, so memory stays small however long the
/// output.
package struct TailKeeper {
    private let limit: Int
    private var lines: [[UInt8]] = []
    private var current: [UInt8] = []
    /// Lines that came before the kept ones, no longer kept.
    package private(set) var dropped = 0

    package init(limit: Int) { self.limit = limit }

    package mutating func feed(_ bytes: [UInt8]) {
        guard limit > 0 else { return }
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            append(bytes[start..<newline])
            push()
            start = newline + 1
        }
        append(bytes[start...])
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>) {
        let room = 1000 - current.count
        if room > 0 { current += bytes.prefix(room) }
    }

    private mutating func push() {
        lines.append(current)
        current = []
        if lines.count > limit {
            dropped += lines.count - limit
            lines.removeFirst(lines.count - limit)
        }
    }

    /// ``text``, after a first line that says how many lines came before, if some did: what a
    /// report shows of a long output, so that a cut one is not taken for a whole one.
    var markedText: [String] {
        dropped == 0 ? text : ["[… \(dropped) earlier line\(dropped == 1 ? "" : "s") not kept …]"] + text
    }

    /// The kept lines, as text (a last line without newline included).
    package var text: [String] {
        var all = lines
        if !current.isEmpty { all.append(current) }
        return all.suffix(limit).map { String(decoding: $0, as: UTF8.self) }
    }
}
