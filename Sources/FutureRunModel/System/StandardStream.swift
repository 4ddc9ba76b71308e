import FutureProcess
import Glibc

/// A write to stdout or stderr failed.
package enum OutputError: Error, Equatable {
    /// The reader went away (EPIPE): stop quietly.
    case brokenPipe(descriptor: Int32)
    /// Any other failure (a full disk, an I/O error): reported, never ignored.
    case failed(descriptor: Int32, errno: Int32)
    /// The oldest job's output must be held until it ends and there is no space to hold it.
    case noSpillSpace(job: Int, label: String)

    package var message: String {
        switch self {
        case .brokenPipe(let fd): "\(fd == 1 ? "stdout" : "stderr") was closed by its reader"
        case .failed(let fd, let error):
            "cannot write to \(fd == 1 ? "stdout" : "stderr"): \(String(cString: strerror(error))); output is incomplete"
        case .noSpillSpace(let job, let label):
            "job \(job) (\(label)) cannot go on: its output must be held until it ends (--quiet-success, --retries or CI groups) "
                + "and \(SpillSpace.directory) has no space left for it; free space there or set TMPDIR to a larger file system"
        }
    }
}

/// A descriptor futurerun writes to with plain blocking `write(2)`, every byte or an error. A
/// descriptor that the caller left non-blocking is waited on with `poll`, never switched back.
package struct StandardStream: Sendable {
    package let descriptor: Int32

    package static let output = StandardStream(descriptor: 1)
    package static let error = StandardStream(descriptor: 2)

    package init(descriptor: Int32) { self.descriptor = descriptor }

    package var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Whether both descriptors are the same open file, pipe or terminal (`2>&1`).
    package func isSameFile(as other: StandardStream) -> Bool {
        var mine = stat()
        var theirs = stat()
        guard fstat(descriptor, &mine) == 0, fstat(other.descriptor, &theirs) == 0 else { return false }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    package func write(_ bytes: [UInt8]) throws(OutputError) {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done)
            }
            if count >= 0 {
                done += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            case EPIPE: throw .brokenPipe(descriptor: descriptor)
            case let error: throw .failed(descriptor: descriptor, errno: error)
            }
        }
    }

    package func write(_ text: String) throws(OutputError) {
        try write(Array(text.utf8))
    }
}

/// Where held output spills, as futurerun's messages name it.
package enum SpillSpace {
    package static var directory: String { TemporaryDirectory.path }
    /// How long the oldest job may wait for spill space, its output held until it ends, before the
    /// run gives up on it (nothing else will free space for it).
    package static let patience: Duration = .seconds(10)
}
