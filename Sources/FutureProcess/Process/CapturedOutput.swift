import Dispatch
import FutureCore
import Glibc
import Synchronization

/// The bytes one stream of a command produced: kept in memory up to a limit, spilled to a private
/// spill file past it, readable while the command still runs.
///
/// ## Threading
/// The process engine's thread appends; the spill writer's thread (one for all outputs) writes to
/// the file; any thread reads. ``read(from:maxCount:)`` and ``bytes()``
/// never block on the writer (a spilled part is read from the file outside the lock). A reader that
/// wants to wait for more registers a waker with ``setWaker(_:)``: it is called, on the engine's
/// thread, after each batch of appends (what one pipe had ready) and at the end.
///
/// Memory stays near the limit: past it, what is in memory goes to the file, written on the spill
/// writer's thread so that the engine goes on reading pipes meanwhile (fresh page-cache pages are
/// slow to write on a VM). The engine waits for the writer only when a stream gets more than
/// `aheadOfDiskLimit` past its limit. In *streaming* mode
/// (``discardConsumed()``), bytes a reader has consumed with ``consume(maxCount:)`` are dropped
/// instead of kept, so a stream that is printed as it arrives is never written to disk at all.
public final class CapturedOutput: Sendable {
    private struct State {
        var total = 0
        var chunks: [[UInt8]] = []
        var memoryStart = 0
        var memoryCount = 0
        var fileEnd = 0
        var file: SpillFile?
        var cursor = 0
        var discardsConsumed = false
        var finished = false
        var lost = 0
        var failure: SystemError?
        var waker: (@Sendable () -> Void)?
        /// A spill of this stream is with the spill writer.
        var spilling = false
        /// The last spill found the disk full (ENOSPC, EDQUOT): its bytes stay in memory, and the
        /// engine reads no more of this stream until they have gone to disk or to the reader.
        var waitingForSpace = false
        /// Since when (monotonic), while waiting.
        var waitingSince: ContinuousClock.Instant?

        /// Lets go of the chunks in memory that end at or before `offset` (consumed, or spilled).
        mutating func dropChunks(before offset: Int) {
            while let first = chunks.first, memoryStart + first.count <= offset {
                chunks.removeFirst()
                memoryStart += first.count
                memoryCount -= first.count
            }
        }
    }

    private let state = Locked(State())
    private let memoryLimit: Int
    private let spillDirectory: String

    init(memoryLimit: Int, spillDirectory: String) {
        self.memoryLimit = max(memoryLimit, 4096)
        self.spillDirectory = spillDirectory
    }

    // MARK: Reading

    /// Bytes received so far (those lost to a failed spill included).
    public var count: Int { state.withLock { $0.total } }

    /// Whether the stream has ended (the command closed it, or the engine gave up draining it).
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether the stream waits for spill space: its pipe is not read meanwhile, so the command
    /// blocks on it as it would writing to a slow terminal. Any thread.
    package var isWaitingForSpace: Bool {
        state.withLock { $0.waitingForSpace && $0.memoryCount > memoryLimit }
    }

    /// How long the stream has waited for spill space, if it waits now.
    package var waitedForSpace: Duration? {
        state.withLock { state in
            guard state.waitingForSpace, state.memoryCount > memoryLimit, let since = state.waitingSince else { return nil }
            return .now - since
        }
    }

    /// Whether any stream of this process has ever had to wait for spill space, and why.
    package static var spaceShortage: SystemError? { shortage.withLock { $0 } }
    private static let shortage = Locked<SystemError?>(nil)

    /// Set when spilling to disk failed: that many bytes could not be kept.
    public var failure: (error: SystemError, lostBytes: Int)? {
        state.withLock { state in state.failure.map { ($0, state.lost) } }
    }

    /// Bytes `[offset, offset + maxCount)` as far as received; empty at the end of what is there.
    /// Never blocks on the writer. In streaming mode consumed bytes are gone, all but the newest
    /// chunk: what is read starts where the bytes still kept do.
    public func read(from offset: Int, maxCount: Int = 1 << 20) -> [UInt8] {
        enum Source { case memory([UInt8]), file(SpillFile, Int) }
        let source: Source = state.withLock { state in
            let end = state.total - state.lost
            guard offset < end else { return .memory([]) }
            if offset < state.fileEnd, let file = state.file {
                return .file(file, min(maxCount, state.fileEnd - offset))
            }
            var bytes: [UInt8] = []
            var position = state.memoryStart
            for chunk in state.chunks {
                let chunkEnd = position + chunk.count
                if chunkEnd > offset {
                    let from = max(0, offset - position)
                    let take = min(chunk.count - from, maxCount - bytes.count)
                    bytes.append(contentsOf: chunk[from..<(from + take)])
                    if bytes.count == maxCount { break }
                }
                position = chunkEnd
            }
            return .memory(bytes)
        }
        switch source {
        case .memory(let bytes): return bytes
        case .file(let file, let count): return (try? file.read(at: offset, count: count)) ?? []
        }
    }

    /// Everything received so far. Never blocks on the writer.
    public func bytes() -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let next = read(from: all.count)
            if next.isEmpty { return all }
            all.append(contentsOf: next)
        }
    }

    /// Switches to streaming mode: from now on bytes passed by ``consume(maxCount:)`` are dropped.
    public func discardConsumed() {
        state.withLock { $0.discardsConsumed = true }
    }

    /// The next bytes after the last consumed ones (empty if none are there yet); advances the
    /// cursor. Never blocks on the writer.
    public func consume(maxCount: Int = 1 << 20) -> [UInt8] {
        let offset = state.withLock { $0.cursor }
        let bytes = read(from: offset, maxCount: maxCount)
        guard !bytes.isEmpty else { return bytes }
        state.withLock { state in
            state.cursor = offset + bytes.count
            guard state.discardsConsumed else { return }
            // The newest chunk stays (as if the reader were one chunk behind), so that the end of
            // a stream printed as it came is still readable when its command ends.
            let newest = state.memoryStart + state.memoryCount - (state.chunks.last?.count ?? 0)
            state.dropChunks(before: min(state.cursor, newest))
        }
        return bytes
    }

    /// Whether everything has been consumed and the stream has ended.
    public var isDrained: Bool {
        state.withLock { $0.finished && $0.cursor >= $0.total - $0.lost }
    }

    /// Calls `waker` (on the engine's thread) after each batch of appends and at the end; at once
    /// if already finished. Replaces an earlier waker.
    public func setWaker(_ waker: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state in
            state.waker = waker
            return state.finished
        }
        if finished { waker() }
    }

    // MARK: Writing (engine thread)

    /// Adds bytes; the reader is woken by ``wakeReader()`` once the batch is in.
    func append(_ bytes: [UInt8]) {
        let spill: Spill? = state.withLock { state in
            defer { state.total += bytes.count }
            if state.failure != nil {
                state.lost += bytes.count
                return nil
            }
            state.chunks.append(bytes)
            state.memoryCount += bytes.count
            guard state.memoryCount > memoryLimit, !state.spilling, !state.waitingForSpace else { return nil }
            state.spilling = true
            return Spill(of: state)
        }
        if let spill {
            Self.spillWriter.execute { [self] in writeSpills(from: spill) }
        } else {
            waitWhileFarAheadOfDisk()
        }
    }

    /// How far past its memory limit a stream may get while its spill is being written.
    static let aheadOfDiskLimit = 1 << 20
    /// One thread writes every output's spills, in the order they are handed over.
    private static let spillWriter = JobPool(width: 1)
    /// The engine's thread waits here for the spill writer (it is the only thread that appends).
    private static let spillWritten = DispatchSemaphore(value: 0)
    private static let engineWaits = Atomic<Bool>(false)

    /// Blocks the engine's thread while this stream's memory is more than `aheadOfDiskLimit`
    /// past its limit with a spill in progress: a disk slower than the child keeps memory bounded
    /// by holding up the reads, as when the engine wrote spills itself.
    private func waitWhileFarAheadOfDisk() {
        func farAhead() -> Bool {
            state.withLock { $0.spilling && $0.memoryCount > memoryLimit + Self.aheadOfDiskLimit }
        }
        while farAhead() {
            Self.engineWaits.store(true, ordering: .sequentiallyConsistent)
            if farAhead() { Self.spillWritten.wait() }
            Self.engineWaits.store(false, ordering: .sequentiallyConsistent)
        }
    }

    /// On the spill writer's thread: writes `spill`, then what came past the limit meanwhile,
    /// until the stream is within its limit again.
    private func writeSpills(from first: Spill) {
        var next: Spill? = first
        while let spill = next {
            write(spill)
            next = state.withLock { state in
                guard state.failure == nil, !state.waitingForSpace, state.memoryCount > memoryLimit else {
                    state.spilling = false
                    return nil
                }
                return Spill(of: state)
            }
            if Self.engineWaits.load(ordering: .sequentiallyConsistent) { Self.spillWritten.signal() }
        }
    }

    /// On the engine's thread, for a stream waiting for space: tries again. When the reader has
    /// taken enough meanwhile, the stream needs no space any more; otherwise its spill goes to the
    /// writer once more (and, if the disk is still full, it waits again after the next read).
    func retryAfterSpaceShortage() {
        let spill: Spill? = state.withLock { state in
            guard state.waitingForSpace else { return nil }
            state.waitingForSpace = false
            guard state.memoryCount > memoryLimit, !state.spilling else {
                state.waitingSince = nil
                return nil
            }
            state.spilling = true
            return Spill(of: state)
        }
        if let spill { Self.spillWriter.execute { [self] in writeSpills(from: spill) } }
    }

    /// Calls the waker: a batch of appends is in. One wake-up per batch, not per append, spares
    /// the reader most wake-ups for a stream written a few KiB at a time.
    func wakeReader() {
        state.withLock { $0.waker }?()
    }

    /// What is in memory and not yet in the file (streaming mode: only what is not consumed), and
    /// where it goes in the file: the chunks, in order and contiguous, joined outside the lock so
    /// that one `pwrite` takes them all (a pipe is read a few KiB at a time).
    private struct Spill {
        var chunks: [[UInt8]] = []
        var offset: Int
        let end: Int
        let file: SpillFile?

        init(of state: State) {
            var position = state.memoryStart
            offset = position
            for chunk in state.chunks {
                if !state.discardsConsumed || position + chunk.count > state.cursor {
                    if chunks.isEmpty { offset = position }
                    chunks.append(chunk)
                }
                position += chunk.count
            }
            end = position
            file = state.file
        }

        /// The chunks as one buffer.
        var bytes: [UInt8] {
            var all: [UInt8] = []
            all.reserveCapacity(end - offset)
            for chunk in chunks { all.append(contentsOf: chunk) }
            return all
        }
    }

    /// Writes a spill to the file without holding the lock, so that a reader is never held up by
    /// the disk (it finds those bytes in memory meanwhile), then drops them from memory. On the
    /// spill writer's thread, the only writer, one spill of a stream at a time.
    private func write(_ spill: Spill) {
        var file = spill.file
        do throws(SystemError) {
            if file == nil { file = try SpillFile(in: spillDirectory) }
            if !spill.chunks.isEmpty { try file!.write(spill.bytes, at: spill.offset) }
            state.withLock { state in
                state.file = file
                state.fileEnd = spill.end
                state.dropChunks(before: spill.end)
                state.waitingSince = nil
            }
        } catch {
            if error.errno == ENOSPC || error.errno == EDQUOT {
                // Nothing is lost: the bytes wait in memory, and the command waits on its pipe.
                Self.shortage.withLock { $0 = $0 ?? error }
                state.withLock { state in
                    state.file = file
                    state.waitingForSpace = true
                    if state.waitingSince == nil { state.waitingSince = .now }
                }
                return
            }
            state.withLock { state in
                state.file = file
                state.failure = error
                state.lost += state.memoryCount
                state.chunks = []
                state.memoryCount = 0
            }
        }
    }

    func finish() {
        markFinished()
        wakeReaderAtEnd()
    }

    /// Records the end of the stream without waking the reader yet (the engine wakes it once the
    /// command's result is resolved, so a reader that waits for both wakes once).
    func markFinished() {
        state.withLock { $0.finished = true }
    }

    /// Calls the waker a last time and drops it.
    func wakeReaderAtEnd() {
        let waker = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.waker = nil }
            return state.waker
        }
        waker?()
    }
}
