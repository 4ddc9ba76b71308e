import FutureRunModel

/// What a slot's worker sends back on its stdout (``SlotWorker``), for each job: the job's stdout
/// as it comes; after the job, if it wrote to stderr, `\n` `\u{1E}` TOKEN ` e ` LENGTH `\n` and
/// those bytes; then `\n` `\u{1E}` TOKEN ` s ` STATUS `\n`. One stream: a second one (stderr) costs
/// each job a delay of tens of milliseconds in Slurm's I/O forwarding. The `\n` before each marker
/// is the marker's, not the job's.
///
/// A value fed the bytes as they come, handing out the job's stdout at once (all but the few bytes
/// that may begin a marker), its stderr and its end. Tested on byte strings.
package struct SlotFrames {
    package enum Piece: Equatable {
        case stdout([UInt8])
        case stderr([UInt8])
        case end(status: Int32)
    }

    private let marker: [UInt8]
    private var pending: [UInt8] = []
    /// Bytes of stderr still to come, after an `e` marker.
    private var stderrLeft = 0

    /// - Parameter newlineFirst: each marker begins with `\n` (``SlotWorker``'s do, so that
    ///   Slurm forwards it as a line of its own); without it, only the bytes that may begin a
    ///   marker (`\u{1E}` and what follows) wait for more, so a job's last line comes at once.
    package init(token: String, newlineFirst: Bool = true) {
        marker = (newlineFirst ? [0x0A] : []) + [0x1E] + Array(token.utf8) + [0x20]
    }

    /// What `bytes` complete, in order.
    package mutating func feed(_ bytes: [UInt8]) -> [Piece] {
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
        let safe = pending.count - heldBack()
        if stderrLeft == 0, safe > 0 {
            pieces.append(.stdout(Array(pending[..<safe])))
            pending.removeFirst(safe)
        }
        return pieces
    }

    /// What was held back as the possible start of a marker: the stream has ended, so it is
    /// output after all.
    package mutating func rest() -> [Piece] {
        defer { pending = [] }
        guard !pending.isEmpty else { return [] }
        return stderrLeft > 0 ? [.stderr(pending)] : [.stdout(pending)]
    }

    /// How many bytes at the end of `pending` may begin a marker: the longest end that is a
    /// beginning of it.
    private func heldBack() -> Int {
        for length in stride(from: min(marker.count - 1, pending.count), to: 0, by: -1)
        where pending[(pending.count - length)...].elementsEqual(marker[..<length]) {
            return length
        }
        return 0
    }

    private func firstMarker() -> Int? {
        var index = 0
        let separatorOffset = marker[0] == 0x1E ? 0 : 1
        while let found = pending[index...].firstIndex(of: 0x1E) {
            let start = found - separatorOffset
            if start >= 0, start + marker.count <= pending.count, pending[start..<(start + marker.count)].elementsEqual(marker) {
                return start
            }
            index = found + 1
        }
        return nil
    }
}
