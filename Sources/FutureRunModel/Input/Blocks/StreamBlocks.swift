import Glibc

/// `--pipe`'s blocks: an input read through once, cut at record boundaries into blocks of about
/// `size` bytes (or of `records` records), each headed by the input's first `headerLines` lines.
///
/// Each block is read straight into its own array, which becomes the job's input without a copy;
/// only the part after the cut (usually less than a record) is copied into the next one. With
/// `-N`, blocks are copied out of what was read, one at a time. ``next()`` blocks while it reads;
/// one thread at a time uses it (``BlockJobs``' lock).
package struct StreamBlocks {
    private let descriptor: Int32
    private let boundary: RecordBoundary
    private let size: Int
    private let records: Int?
    private var headerLines: Int
    private var header: [UInt8] = []
    /// Read, and not yet in a block: `pending[offset...]`.
    private var pending: [UInt8] = []
    private var offset = 0
    private var atEnd = false
    package private(set) var readError: Int32?

    package init(descriptor: Int32, boundary: RecordBoundary, size: Int, records: Int?, headerLines: Int) {
        self.descriptor = descriptor
        self.boundary = boundary
        self.size = size
        self.records = records
        self.headerLines = headerLines
    }

    /// The next block, header first; `nil` at the end of input (an empty input has none).
    package mutating func next() -> [UInt8]? {
        if headerLines > 0 { readHeader() }
        var target = size + boundary.lookahead
        while true {
            let found = pending.withUnsafeBytes { all in
                cut(in: UnsafeRawBufferPointer(rebasing: all[offset...]))
            }
            if let found {
                var block: [UInt8]
                if offset == 0, pending.count - found < found {
                    // The block is most of what was read: it keeps the array; the rest moves.
                    block = pending
                    pending = Array(block[found...])
                    block.removeSubrange(found...)
                } else {
                    block = Array(pending[offset..<(offset + found)])
                    offset += found
                }
                return header.isEmpty ? block : header + block
            }
            if atEnd {
                let rest = Array(pending[offset...])
                (pending, offset) = ([], 0)
                return rest.isEmpty ? nil : header.isEmpty ? rest : header + rest
            }
            // What is left is not a block yet (a record longer than the block, fewer than -N
            // records): read on, into a fresh array that starts with it.
            let left = pending.count - offset
            target = max(target, 2 * left)
            pending = fill(Array(pending[offset...]), to: target)
            offset = 0
        }
    }

    /// Where this block ends in `bytes`, if it can be told yet: after `records` records, else at the
    /// last boundary within `size` (the first after it for a longer record). `nil`: read more.
    private func cut(in bytes: UnsafeRawBufferPointer) -> Int? {
        if let records {
            var position = 0
            for _ in 0..<records {
                guard let next = boundary.firstCut(in: bytes, from: position + 1) else { return nil }
                position = next
            }
            return position
        }
        guard bytes.count >= size + boundary.lookahead || atEnd, bytes.count > 0 else { return nil }
        // The input's last bytes, within a block's size, are one block, as in GNU parallel.
        if atEnd, bytes.count <= size { return bytes.count }
        return boundary.lastCut(in: bytes, atMost: size) ?? boundary.firstCut(in: bytes, from: size)
    }

    /// `carried`, then what is read, up to `target` bytes (less at the end of input).
    private mutating func fill(_ carried: [UInt8], to target: Int) -> [UInt8] {
        let capacity = max(target, carried.count)
        var ended = atEnd
        var failure: Int32?
        let block = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = carried.count
            carried.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { buffer.baseAddress!.initialize(from: base, count: source.count) }
            }
            while count < capacity, !ended {
                let got = read(descriptor, buffer.baseAddress! + count, capacity - count)
                if got > 0 {
                    count += got
                } else if got < 0, errno == EINTR {
                    continue
                } else {
                    if got < 0 { failure = errno }
                    ended = true
                }
            }
        }
        atEnd = ended
        if let failure { readError = failure }
        return block
    }

    /// The first `headerLines` lines of the input, for every block.
    private mutating func readHeader() {
        var target = 64 * 1024
        while true {
            pending = fill(pending, to: target)
            var end = 0
            var lines = 0
            while lines < headerLines, let newline = pending[end...].firstIndex(of: 0x0A) {
                end = newline + 1
                lines += 1
            }
            if lines == headerLines || atEnd {
                header = Array(pending[..<(lines == headerLines ? end : pending.count)])
                offset = header.count
                headerLines = 0
                return
            }
            target *= 2
        }
    }
}
