/// What a slot's worker sends back on its stdout (``SlotWorker``), for each job: the job's stdout
/// as it comes; after the job, if it wrote to stderr, `\n` `\u{1E}` TOKEN ` e ` LENGTH `\n` and
/// those bytes; then `\n` `\u{1E}` TOKEN ` s ` STATUS `\n`. One stream: a second one (stderr) costs
/// each job a delay of tens of milliseconds in Slurm's I/O forwarding. The `\n` before each marker
/// is the marker's, not the job's.
///
/// A value fed the bytes as they come, handing out the job's stdout at once (all but the few bytes
/// that may begin a marker), its stderr and its end. Tested on byte strings.
struct SlotFrames {
    enum Piece: Equatable {
        case stdout([UInt8])
        case stderr([UInt8])
        case end(status: Int32)
    }

    private let marker: [UInt8]
    private var pending: [UInt8] = []
    /// Bytes of stderr still to come, after an `e` marker.
    private var stderrLeft = 0

    init(token: String) {
        marker = [0x0A, 0x1E] + Array(token.utf8) + [0x20]
    }

    /// What `bytes` complete, in order.
    mutating func feed(_ bytes: [UInt8]) -> [Piece] {
        pending += bytes
        var pieces: [Piece] = []
        while true {
            if stderrLeft > 0 {
                guard !pending.isEmpty else { break }
                let count = min(stderrLeft, pending.count)
                pieces.append(.stderr(Array(pending[..<count])))
                pending.removeFirst(count)
                stderrLeft -= count
                continue
            }
            guard let at = firstMarker() else { break }
            if at > 0 { pieces.append(.stdout(Array(pending[..<at]))) }
            pending.removeFirst(at)
            let fields = marker.count
            guard let newline = pending[fields...].firstIndex(of: 0x0A) else { return pieces }
            let words = pending[fields..<newline].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
            pending.removeFirst(newline + 1)
            switch (words.first, words.count == 2 ? Int(words[1]) : nil) {
            case ("e", let length?): stderrLeft = max(0, length)
            case ("s", let status?): pieces.append(.end(status: Int32(clamping: status)))
            default: pieces.append(.end(status: 255))  // never sent: a worker that is not ours
            }
        }
        // Keep back what may be the start of a marker.
        let safe = pending.count - (marker.count - 1)
        if stderrLeft == 0, safe > 0 {
            pieces.append(.stdout(Array(pending[..<safe])))
            pending.removeFirst(safe)
        }
        return pieces
    }

    private func firstMarker() -> Int? {
        var index = 0
        while let found = pending[index...].firstIndex(of: 0x1E) {
            let start = found - 1
            if start >= 0, start + marker.count <= pending.count, pending[start..<(start + marker.count)].elementsEqual(marker) {
                return start
            }
            index = found + 1
        }
        return nil
    }
}
