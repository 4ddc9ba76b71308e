import FutureCore
import Glibc
import Synchronization
import _CFutureShims

/// The loop: its turns, the messages posted to it, children's ends and streams. On the engine's
/// thread only.
extension ProcessEngine {
    func runLoop() {
        // While the program is still parsing its arguments, not on the way to the first spawn.
        fc_spawn_prepare()
        // A short time slice lets this thread, woken by a child's end, take the CPU from a running
        // child at once instead of waiting out the child's slice (docs/PERFORMANCE.md has the
        // figures). Its children get the default slice back.
        _ = fc_request_short_slice(100_000)
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        OSThread.markNonBlocking()
        // A child's input pipe whose reader is gone then fails a write with EPIPE, which
        // ``feedInput(_:)`` handles, instead of signalling this process.
        var brokenPipe = SIGPIPE
        _ = fc_block_signals(&brokenPipe, 1)
        let capacity = 256
        let tokens = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        var batch: [ChildProcess?] = []
        while true {
            let timeout = deadlines.withLock { $0.earliest }.map { max(.zero, $0 - .now) }
            let count = poller.wait(timeout: timeout, tokens: tokens, events: events, capacity: capacity)
            // Every reported descriptor is disarmed now (one-shot): mark them all before
            // handling any, so that a handler closing one reported later skips its unwatch.
            processes.withLock { table in
                batch.removeAll(keepingCapacity: true)
                for index in 0..<count {
                    let token = tokens[index]
                    let child = token <= EventPoller.childSignalToken ? nil : table[token >> 2]
                    if let child, let stream = ChildProcess.Stream(rawValue: token & 3) { child.setArmed(stream, false) }
                    batch.append(child)
                }
            }
            for index in 0..<count {
                if tokens[index] == EventPoller.wakeToken {
                    poller.drainWakeUps()
                    handleInbox()
                    continue
                }
                if tokens[index] == EventPoller.childSignalToken {
                    exitWatcher.drain()
                    handleExitsOfSomeChildren(buffer)
                    continue
                }
                // A child finished earlier in this batch is still handled safely: its
                // descriptors are closed and it has exited, so nothing more happens.
                guard let child = batch[index] else { continue }
                switch ChildProcess.Stream(rawValue: tokens[index] & 3) {
                case .exit: handleExit(child, buffer)
                case .stdout: readStream(child, .stdout, buffer, events: events[index])
                case .stderr: readStream(child, .stderr, buffer, events: events[index])
                case .input: feedInput(child)
                case nil: break
                }
            }
            fireDueDeadlines(buffer)
            finishTurn()
        }
    }

    /// The turn's deferred work, then the pipes for the next child: none of it delays a spawn.
    private func finishTurn() {
        while true {
            let work = endOfTurn.withLock { work in
                defer { work = [] }
                return work
            }
            if work.isEmpty { break }
            for body in work { body() }
        }
        pipes.refill()
    }

    private func handleInbox() {
        let messages = inbox.withLock { messages in
            defer { messages = [] }
            return messages
        }
        for message in messages {
            switch message {
            case .deadline: break
            case .cancel(let id):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited, !child.cancelled else { continue }
                child.cancelled = true
                stop(child)
            case .signal(let id, let signal):
                guard let child = processes.withLock({ $0[id] }), !child.hasExited else { continue }
                child.signalGroup(signal)
            case .signalAll(let signal, let promise):
                for child in processes.withLock({ Array($0.values) }) where !child.hasExited { child.signalGroup(signal) }
                promise.succeed(())
            case .readStderr(let id):
                if readPendingStderr(of: id) { processes.withLock { $0[id] }?.stderr.wakeReader() }
            }
        }
    }

    /// ``CommandRun/readPendingStderr()``: reads what the child's stderr pipe holds now, until it
    /// would block, and leaves its end (and the watching of it) to the loop. Off the loop's thread
    /// it asks the loop to, and returns false; so it does when the output has no room to hold more
    /// (the rest comes when there is: ``CapturedOutput/isWaitingForSpace``). At most a pipe's
    /// worth (1 MiB): more comes from a writer that is still writing.
    func readPendingStderr(of id: UInt64) -> Bool {
        guard isLoopThread else {
            post(.readStderr(id))
            return false
        }
        guard let child = processes.withLock({ $0[id] }), case let fd = child.descriptor(.stderr), fd >= 0 else {
            return true
        }
        withUnsafeTemporaryAllocation(byteCount: 1 << 14, alignment: 16) { buffer in
            var reads = 0
            while reads < 64, !child.stderr.isWaitingForSpace {
                reads += 1
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count > 0 {
                    child.stderr.append(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break  // nothing more now (EAGAIN), or its end, which its event reports
                }
            }
        }
        return !child.stderr.isWaitingForSpace
    }

    /// TERM to the group now, KILL after the grace period.
    func stop(_ child: ChildProcess) {
        child.signalGroup(SIGTERM)
        // A group stopped by job control (Ctrl-Z) acts on TERM only once it runs again.
        child.signalGroup(SIGCONT)
        schedule(.kill(child.id), at: .now + child.command.gracePeriod)
    }

    /// SIGCHLD came (portable watcher): each running child that has exited is handled. Other code's
    /// children are never touched: each is asked by its pid.
    private func handleExitsOfSomeChildren(_ buffer: UnsafeMutableRawBufferPointer) {
        for child in processes.withLock({ Array($0.values) }) where !child.hasExited && child.isZombie {
            handleExit(child, buffer)
        }
    }

    private func handleExit(_ child: ChildProcess, _ buffer: UnsafeMutableRawBufferPointer) {
        guard !child.hasExited else { return }
        // The group leader is a zombie until reaped, so the group id is still ours: stop leftovers.
        child.signalGroup(SIGTERM)
        guard child.reap() else {
            // Reported but not reapable (never expected): watch for the exit again.
            if child.exitDescriptor >= 0, !child.isArmed(.exit) {
                child.setArmed(.exit, true)
                poller.rearm(child.exitDescriptor, token: child.token(.exit))
            }
            return
        }
        release(child, .exit)
        afterExit(child, buffer)
    }

    /// The child has been reaped. Its pipes are usually at their end already: read them now rather
    /// than in later turns of the loop, and wait (at most the drain period) only if they are not.
    func afterExit(_ child: ChildProcess, _ buffer: UnsafeMutableRawBufferPointer) {
        readStream(child, .stdout, buffer)
        readStream(child, .stderr, buffer)
        if child.streamsOpen {
            schedule(.drain(child.id), at: .now + Self.drainPeriod)
        } else {
            finish(child)
        }
    }

    /// Reads what `stream` has, then watches it again; at its end, closes it. At most 16 buffers a
    /// turn, so that one talkative child cannot hold up the others. `events` are those the poller
    /// reported, `nil` when called without an event.
    func readStream(
        _ child: ChildProcess, _ stream: ChildProcess.Stream, _ buffer: UnsafeMutableRawBufferPointer,
        events: UInt32? = nil
    ) {
        let fd = child.descriptor(stream)
        let output = stream == .stdout ? child.stdout : child.stderr
        guard fd >= 0 else { return }
        var appended = false
        defer { if appended { afterThisTurn { output.wakeReader() } } }
        // Most jobs end with nothing (more) to say: then their hang-up alone tells, without a read.
        var ended = events.map(EventPoller.isEndOfPipe) ?? false
        var reads = 0
        while !ended {
            if reads == 16 { return watchAgain(child, stream) }
            reads += 1
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                output.append(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
                appended = true
                // No room to hold more: leave the rest in the pipe (the child waits on it) and try
                // again shortly, without watching the pipe meanwhile.
                if output.isWaitingForSpace {
                    schedule(.spaceRetry(child.id, stdout: stream == .stdout), at: .now + Self.spaceRetryPeriod)
                    return
                }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return watchAgain(child, stream)
            } else {
                ended = true  // end of stream, or a read error, which ends it too
            }
        }
        release(child, stream)
        output.markFinished()
        guard !child.streamsOpen else { return }
        if child.hasExited {
            finish(child)
        } else if child.isZombie {
            // A child's pipes close as it exits, just before its exit is reported: it is usually a
            // zombie by now. Handling its exit here saves a second wake-up.
            handleExit(child, buffer)
        }
    }

    /// Writes what the child's input pipe takes of what is left to feed it; closes the pipe once all
    /// is written (the child reads its end) or its reader is gone. A child that stops reading keeps
    /// only its pipe's worth in flight: the rest waits here until the pipe drains.
    private func feedInput(_ child: ChildProcess) {
        let fd = child.inputDescriptor
        guard fd >= 0, child.feed != nil else { return }
        switch child.feed!.write(to: fd) {
        case .wouldBlock: watchAgain(child, .input)
        case .done, .stopped:
            release(child, .input)
            child.endFeed()
        }
    }

    /// Arms the descriptor for `stream` again if its event has been reported.
    private func watchAgain(_ child: ChildProcess, _ stream: ChildProcess.Stream) {
        guard !child.isArmed(stream) else { return }
        child.setArmed(stream, true)
        poller.rearm(child.descriptor(stream), token: child.token(stream), forWriting: stream == .input)
    }

    /// Closes the child's descriptor for `stream`, taking it out of the epoll set first if it is
    /// still armed. Closing alone is not enough then: epoll keeps reporting a closed descriptor
    /// whose file is still open elsewhere (a child being spawned holds copies of our descriptors
    /// until its `exec`), which spun this loop for that long. A disarmed one reports nothing, and
    /// skipping its `epoll_ctl` saves up to three calls for each job.
    private func release(_ child: ChildProcess, _ stream: ChildProcess.Stream) {
        let fd = child.takeDescriptor(stream)
        guard fd >= 0 else { return }
        if child.isArmed(stream) {
            child.setArmed(stream, false)
            poller.unwatch(fd)
        }
        // At once, not at the end of the turn: jobs that end together would otherwise hold their
        // descriptors while as many new ones are spawned, past what the width was fitted to
        // (`ulimit -n`), and a spawn would fail with EMFILE.
        close(fd)
    }

    /// Resolves the child's future (on this thread) once it has exited and its pipes are done.
    /// The streams' readers are woken for the end after the result has resolved and at the end of
    /// the turn, so a reader waiting for the end of the output and then the result is woken once,
    /// and only after the commands this one's end starts have been spawned.
    func finish(_ child: ChildProcess) {
        guard processes.withLock({ $0.removeValue(forKey: child.id) }) != nil else { return }
        child.stdout.markFinished()
        child.stderr.markFinished()
        release(child, .exit)
        release(child, .stdout)
        release(child, .stderr)
        release(child, .input)
        child.endFeed()
        if let entry = child.guardianEntry { guardian.withLock { $0 }?.forget(entry) }
        child.promise.succeed(child.result())
        afterThisTurn {
            child.stdout.wakeReaderAtEnd()
            child.stderr.wakeReaderAtEnd()
        }
    }
}
