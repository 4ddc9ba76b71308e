import FutureCore
import Glibc
import _CFutureShims

/// One spawned command, from its spawn (`fc_spawn`: vfork and exec) to its result.
// @unchecked Sendable: created and spawned on the thread that starts the command, which stops
// touching its `var`s once it publishes the child in the engine's Mutex-guarded table (the lock
// orders those writes before every later read); from then on the `var`s are read and written only
// on the engine's loop thread. The `let`s are Sendable.
final class ChildProcess: @unchecked Sendable {  // safe: see the comment above
    enum Stream: UInt64 { case exit = 0, stdout = 1, stderr = 2, input = 3 }

    let id: UInt64
    let command: Command
    let promise: Promise<CommandResult, Never>
    let stdout: CapturedOutput
    let stderr: CapturedOutput

    var pid: pid_t = 0
    var exitDescriptor: Int32 = -1
    var stdoutDescriptor: Int32 = -1
    var stderrDescriptor: Int32 = -1
    /// Our end of the child's input pipe, closed when the command finishes (or, when the engine
    /// feeds it, once all is written); -1 for `/dev/null`.
    var inputDescriptor: Int32 = -1
    /// What the engine still writes into the input pipe, if it feeds it.
    var feed: InputFeed?
    let startInstant = ContinuousClock.now
    var startTime: Double = 0

    var waitStatus: Int32?
    var exitInstant: ContinuousClock.Instant?
    var usage = (user: Duration.zero, system: Duration.zero, maxResident: 0)
    var timedOut = false
    var cancelled = false
    /// The child's entry in the guardian's table, if it is guarded.
    var guardianEntry: Int32?
    /// A bit per ``Stream`` whose descriptor is watched and armed (one-shot, see
    /// ``EventPoller/watchOnce(_:token:forWriting:)``): its event has not been reported since it was armed.
    private var armedStreams: UInt8 = 0

    init(id: UInt64, command: Command) {
        self.id = id
        self.command = command
        self.promise = Promise()
        let directory = command.spillDirectory ?? TemporaryDirectory.path
        self.stdout = CapturedOutput(memoryLimit: command.memoryLimit, spillDirectory: directory)
        self.stderr = CapturedOutput(memoryLimit: command.memoryLimit, spillDirectory: directory)
    }

    func token(_ stream: Stream) -> UInt64 { id << 2 | stream.rawValue }

    var hasExited: Bool { waitStatus != nil }
    var streamsOpen: Bool { stdoutDescriptor >= 0 || stderrDescriptor >= 0 }

    /// Spawns the child. On failure returns the errno and leaves no descriptor open.
    func spawn(
        program: String, stdin nullInput: Int32, environment: SpawnEnvironment, pipes: PipeReserve, resetSignals: [Int32]
    ) -> Int32? {
        let opened: OpenedInput
        do { opened = try command.input.open() } catch { return error.errno }
        let stdin = opened.child ?? nullInput
        inputDescriptor = opened.held ?? -1
        feed = opened.feed
        defer { if stdin != nullInput { close(stdin) } }
        guard let out = pipes.take() else { return closeInput(errno) }
        guard let err = pipes.take() else {
            let saved = errno
            close(out.read)
            close(out.write)
            return closeInput(saved)
        }
        var signals = sigset_t()
        fc_sigset_empty(&signals)
        for signal in resetSignals { fc_sigset_add(&signals, signal) }
        startTime = CommandResult.unixTimeNow()

        var arguments = command.argumentBytes
        arguments[0] = Array(program.utf8)
        let status = withCStrings(arguments) { argv in
            environment.withEnvironment(adding: command.environment, removing: command.removedEnvironment) { envp in
                if let directory = command.workingDirectoryBytes {
                    return (directory.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { cwd in
                        fc_spawn(&pid, argv, envp, cwd.baseAddress!, stdin, out.write, err.write, &signals)
                    }
                }
                return fc_spawn(&pid, argv, envp, nil, stdin, out.write, err.write, &signals)
            }
        }
        close(out.write)
        close(err.write)
        guard status == 0 else {
            close(out.read)
            close(err.read)
            return closeInput(status)
        }
        stdoutDescriptor = out.read
        stderrDescriptor = err.read
        return nil
    }

    /// Closes our end of the input pipe, and lets go of what was left to feed, after a failed
    /// spawn; returns `error`.
    private func closeInput(_ error: Int32) -> Int32 {
        if inputDescriptor >= 0 { close(inputDescriptor) }
        inputDescriptor = -1
        endFeed()
        return error
    }

    /// Lets go of what was left to feed into the input pipe (engine thread, once the pipe is closed).
    func endFeed() {
        feed?.close()
        feed = nil
    }

    /// Whether the child has exited and waits to be reaped (checked without reaping it, so its group
    /// id stays ours). Never blocks. ``hasExited`` says whether it has been reaped.
    var isZombie: Bool { pid > 0 && fc_has_exited(pid) != 0 }

    /// Reaps the child if it has exited (never blocks). Returns whether it has.
    func reap() -> Bool {
        var status: Int32 = 0
        var user: Int64 = 0
        var system: Int64 = 0
        var resident: Int64 = 0
        let reaped = fc_wait4_nohang(pid, &status, &user, &system, &resident)
        guard reaped == pid else { return false }
        waitStatus = status
        exitInstant = .now
        usage = (.microseconds(user), .microseconds(system), Int(resident))
        return true
    }

    /// Sends `signal` to the child's whole process group. Only before the group leader is reaped,
    /// or right after (the group id cannot be reused while any member lives).
    func signalGroup(_ signal: Int32) {
        guard pid > 0 else { return }
        kill(-pid, signal)
    }

    /// Our descriptor for `stream` (the pidfd for ``Stream/exit``), or -1 once it is closed.
    func descriptor(_ stream: Stream) -> Int32 {
        switch stream {
        case .exit: exitDescriptor
        case .stdout: stdoutDescriptor
        case .stderr: stderrDescriptor
        case .input: inputDescriptor
        }
    }

    /// Whether the descriptor for `stream` is armed: it must then be unwatched before it is closed.
    func isArmed(_ stream: Stream) -> Bool { armedStreams & 1 << stream.rawValue != 0 }

    func setArmed(_ stream: Stream, _ armed: Bool) {
        if armed { armedStreams |= 1 << stream.rawValue } else { armedStreams &= ~(1 << stream.rawValue) }
    }

    /// Hands our descriptor for `stream` to the caller, who closes it; -1 if there is none.
    func takeDescriptor(_ stream: Stream) -> Int32 {
        let fd = descriptor(stream)
        switch stream {
        case .exit: exitDescriptor = -1
        case .stdout: stdoutDescriptor = -1
        case .stderr: stderrDescriptor = -1
        case .input: inputDescriptor = -1
        }
        return fd
    }

    func result() -> CommandResult {
        var status: TerminationStatus
        var exitCode: Int32?
        var signal: Int32?
        if let raw = waitStatus {
            if fc_wifexited(raw) != 0 {
                exitCode = fc_wexitstatus(raw)
                status = .exited(exitCode!)
            } else {
                signal = fc_wtermsig(raw)
                status = .signaled(signal!)
            }
        } else {
            status = .cancelled
        }
        if timedOut { status = .timedOut } else if cancelled { status = .cancelled }
        return CommandResult(
            status: status, exitCode: exitCode, signal: signal, startTime: startTime,
            wallTime: (exitInstant ?? .now) - startInstant, userTime: usage.user, systemTime: usage.system,
            maxResidentBytes: usage.maxResident, stdout: stdout, stderr: stderr, processID: pid)
    }

    /// The result of a command that never ran.
    func result(failedToStart error: Int32) -> CommandResult {
        CommandResult(
            status: .failedToStart(errno: error), exitCode: nil, signal: nil, startTime: startTime,
            wallTime: .now - startInstant, userTime: .zero, systemTime: .zero, maxResidentBytes: 0,
            stdout: stdout, stderr: stderr, processID: 0)
    }
}

/// Calls `body` with a NULL-terminated C array of `strings`, valid only during the call. A string
/// with a NUL byte is cut there, as the kernel would read it. The copies sit in temporary storage
/// (the stack, for a usual command line): no heap allocation per string.
func withCStrings<R>(_ strings: [[UInt8]], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let textCount = strings.reduce(0) { $0 + $1.count + 1 }
    return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: strings.count + 1) { pointers in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: textCount) { text in
            var offset = 0
            for (index, string) in strings.enumerated() {
                pointers[index] = UnsafeRawPointer(text.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
                string.withUnsafeBytes { bytes in
                    if let source = bytes.baseAddress {
                        UnsafeMutableRawPointer(text.baseAddress! + offset).copyMemory(from: source, byteCount: bytes.count)
                    }
                }
                offset += string.count
                text[offset] = 0
                offset += 1
            }
            pointers[strings.count] = nil
            return body(UnsafePointer(pointers.baseAddress!))
        }
    }
}
