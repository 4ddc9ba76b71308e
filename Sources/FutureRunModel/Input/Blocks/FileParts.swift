import Glibc

/// `--pipe-part`'s blocks: byte ranges of a seekable file that end at record boundaries, found by
/// reading a little at each border (64 KiB, more for a longer record) instead of the whole file.
/// Each range goes to its job through the kernel (``FutureProcess/FileRangeInput``).
/// Used by one thread at a time (``BlockJobs``' lock).
package struct FileParts {
    private let descriptor: Int32
    private let boundary: RecordBoundary
    private let size: Int
    /// GNU parallel's `--pipepart` cut: after the first record end at or after the size (else: as
    /// ``StreamBlocks`` cuts, within the size).
    private let cutsForward: Bool
    /// The file's size when opened, until a read finds less (the file shrank under futurerun).
    private var fileSize: Int
    private var offset = 0
    package private(set) var readError: Int32?
    /// The file was found shorter than when it was opened: the parts end where it ends now.
    private(set) var shrank = false

    /// Fails with the errno when the file cannot be examined.
    package init(descriptor: Int32, boundary: RecordBoundary, size: Int, cutsForward: Bool = false) throws(FilePartsError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(errno) }
        guard info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFBLK else { throw .notSeekable }
        self.descriptor = descriptor
        self.boundary = boundary
        self.size = size
        self.cutsForward = cutsForward
        fileSize = Int(info.st_size)
    }

    /// The next part, `nil` once the file is covered (an empty file has none).
    package mutating func next() -> (offset: Int, length: Int)? {
        guard offset < fileSize else { return nil }
        let start = offset
        let border = start + size
        let end: Int
        if border >= fileSize {
            end = fileSize
        } else if cutsForward {
            end = cutForward(from: border, after: start, endAtOrAfter: true)
        } else {
            end = cut(after: border, from: start)
        }
        offset = end
        return (start, end - start)
    }

    /// Where the part from `start` ends, as ``StreamBlocks`` cuts the same bytes: at the last
    /// boundary within `border`, read backwards from it in growing windows; for a record that runs
    /// past the border, at the first boundary after it; the file's end when there is none.
    private mutating func cut(after border: Int, from start: Int) -> Int {
        var window = 64 * 1024
        while true {
            let origin = max(start, border - window)
            let ahead = min(boundary.lookahead, fileSize - border)
            guard let bytes = read(from: origin, count: border - origin + ahead) else { return fileSize }
            if shrank, border >= fileSize { return fileSize }
            let found = bytes.withUnsafeBytes { boundary.lastCut(in: $0, atMost: border - origin) }
            if let found { return origin + found }
            if origin == start { break }
            window *= 2
        }
        return cutForward(from: border, after: start)
    }

    /// The first boundary at or after `border` (the part starts at `start`), read forwards from a
    /// little before it so that a record's end may straddle it; the file's end when there is none.
    /// `endAtOrAfter`: GNU's `--pipepart`, whose record end itself must start at or after `border`.
    private mutating func cutForward(from border: Int, after start: Int, endAtOrAfter: Bool = false) -> Int {
        let lead = min(border - start - 1, max(boundary.end.count, 1) + 256)
        let origin = border - lead
        var window = 64 * 1024
        while true {
            guard origin < fileSize, let bytes = read(from: origin, count: min(window, fileSize - origin)) else {
                return max(start, min(fileSize, border))
            }
            let found = bytes.withUnsafeBytes { boundary.firstCut(in: $0, from: lead + (endAtOrAfter ? boundary.end.count : 0)) }
            if let found { return origin + found }
            if origin + bytes.count >= fileSize { return fileSize }
            window *= 2
        }
    }

    /// `count` bytes of the file from `origin` (fewer at its end); `nil` on a read error, recorded.
    private mutating func read(from origin: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let now = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, count - got, off_t(origin + got)) }
            if now < 0, errno == EINTR { continue }
            if now < 0 {
                readError = errno
                return nil
            }
            if now == 0 {
                // Shorter than it was: what is there is all there is.
                shrank = true
                fileSize = origin + got
                break
            }
            got += now
        }
        return Array(bytes[..<got])
    }
}

package enum FilePartsError: Error {
    case unreadable(Int32)
    case notSeekable
}
