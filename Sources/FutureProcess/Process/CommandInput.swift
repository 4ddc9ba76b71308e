import Glibc
import _CFutureShims

/// What a child reads on its standard input, opened anew for each child it is given to.
/// FutureProcess brings `/dev/null` (``nullDevice``), bytes the engine writes as the child reads
/// them (``bytes(_:)``) and a byte range of a file spliced in through the kernel
/// (``fileRange(path:offset:length:)``). A program brings an input of its own by conforming: a
/// descriptor it opens for the child, or a pipe the engine feeds (``OpenedInput/feeding(_:)``).
///
///     var command = Command(["wc", "-l"])
///     command.input = .bytes(Array("a\nb\n".utf8))
public protocol CommandInput: Sendable {
    /// Opens the input for one child, on the thread that spawns it (never the engine's, for a
    /// command run on a pool: see ``CommandPool``). An error fails the spawn with its errno.
    func open() throws(InputError) -> OpenedInput
}

/// Why an input could not be opened: the errno its spawn fails with.
public struct InputError: Error, Equatable {
    public let errno: Int32

    public init(errno: Int32) { self.errno = errno }
}

/// One child's standard input, opened (``CommandInput/open()``): what the child reads, and what
/// this process keeps of it. The engine closes every descriptor it is given here: the child's
/// once the child is spawned, the held one when the command finishes (or, fed, once all of it is
/// written).
public struct OpenedInput {
    /// The descriptor the child reads as its standard input; `nil`: `/dev/null`.
    public var child: Int32?
    /// This process's end of the child's input, held while the command runs; `nil`: none.
    public var held: Int32?
    /// What the engine writes into ``held`` as the child reads it, on its thread.
    public var feed: InputFeed?

    public init(child: Int32? = nil, held: Int32? = nil, feed: InputFeed? = nil) {
        self.child = child
        self.held = held
        self.feed = feed
    }

    /// A pipe the engine fills with `feed` as the child reads, then closes: the child reads it all
    /// and then the end of input. The pipe is sized for the feed (up to 1 MiB where the system
    /// allows), and written without blocking: no thread waits on a slow reader.
    public static func feeding(_ feed: InputFeed) throws(InputError) -> OpenedInput {
        var fds: [Int32] = [-1, -1]
        guard fc_pipe_for_child_feed(&fds, feed.expectedCount) == 0 else {
            let error = errno
            var unused = feed
            unused.close()
            throw InputError(errno: error)
        }
        return OpenedInput(child: fds[0], held: fds[1], feed: feed)
    }
}

/// `/dev/null`: the child reads the end of input at once.
public struct NullInput: CommandInput {
    public init() {}

    public func open() -> OpenedInput { OpenedInput() }
}

/// Bytes the engine writes into a pipe as the child reads them, then closes: the child reads them
/// and then the end of input. Written by the engine's thread as the pipe drains (no thread of its
/// own); held until the command finishes. A child that exits without reading them all ends as its
/// status says.
public struct BytesInput: CommandInput {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func open() throws(InputError) -> OpenedInput { try .feeding(.bytes(bytes)) }
}

/// `length` bytes of the file at `path` from byte `offset` on, moved into the child's pipe
/// through the kernel (`splice`: the bytes never pass through this process's memory), then the
/// end of input. A file shorter than that gives what it has. The file is opened at the spawn: a
/// file that cannot be opened fails the spawn with its errno.
public struct FileRangeInput: CommandInput {
    public let path: [UInt8]
    public let offset: Int
    public let length: Int

    public init(path: [UInt8], offset: Int, length: Int) {
        (self.path, self.offset, self.length) = (path, offset, length)
    }

    public func open() throws(InputError) -> OpenedInput {
        let descriptor = (path + [0]).withUnsafeBufferPointer { path in
            path.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) {
                Glibc.open($0, O_RDONLY | O_CLOEXEC)
            }
        }
        guard descriptor >= 0 else { throw InputError(errno: errno) }
        return try .feeding(.file(descriptor: descriptor, offset: offset, length: length))
    }
}

extension CommandInput where Self == NullInput {
    /// `/dev/null` (``NullInput``).
    public static var nullDevice: NullInput { NullInput() }
}

extension CommandInput where Self == BytesInput {
    /// `bytes`, then the end of input (``BytesInput``).
    public static func bytes(_ bytes: [UInt8]) -> BytesInput { BytesInput(bytes) }
}

extension CommandInput where Self == FileRangeInput {
    /// A file's byte range, through the kernel (``FileRangeInput``).
    public static func fileRange(path: [UInt8], offset: Int, length: Int) -> FileRangeInput {
        FileRangeInput(path: path, offset: offset, length: length)
    }
}
