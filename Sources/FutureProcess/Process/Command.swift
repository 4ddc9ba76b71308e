import FutureCore

/// A program to run as a future: what to run, where, with what extra environment, and for how long.
///
///     let result = Command.shell("make test").run().value   // Future<CommandResult>
///
/// The child runs in a process group of its own, with stdin from `/dev/null` (or see ``input``),
/// stdout and stderr captured, an empty signal mask, and only the descriptors the caller left
/// without `O_CLOEXEC` (FutureCore marks every descriptor of its own close-on-exec).
public struct Command: Sendable {
    /// `argv` as bytes: the program (a path, or a name looked up in `PATH`) and its arguments.
    /// Bytes, not strings: a file name need not be UTF-8.
    public var argumentBytes: [[UInt8]]

    /// `argv` as text (bytes that are not UTF-8 show as U+FFFD).
    public var arguments: [String] {
        get { argumentBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { argumentBytes = newValue.map { Array($0.utf8) } }
    }
    /// Added to (or replacing in) the caller's environment.
    public var environment: [(name: String, value: String)]
    /// Removed from the caller's environment (a name ``environment`` sets is set all the same).
    public var removedEnvironment: Set<String> = []
    /// Where the child starts, as bytes (a directory's name need not be UTF-8); `nil` is the
    /// caller's working directory.
    public var workingDirectoryBytes: [UInt8]?

    /// Where the child starts, as text; `nil` is the caller's working directory.
    public var workingDirectory: String? {
        get { workingDirectoryBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { workingDirectoryBytes = newValue.map { Array($0.utf8) } }
    }
    /// Stop the child (TERM to its group, KILL after ``gracePeriod``) if it runs longer.
    public var timeout: Duration?
    /// Between TERM and KILL, on timeout and on cancellation.
    public var gracePeriod: Duration
    /// Bytes of each stream kept in memory before spilling to a private temporary file.
    public var memoryLimit: Int
    /// Where spilled output goes (unnamed files, never visible there); `nil`: `$TMPDIR`, else `/tmp`.
    public var spillDirectory: String?
    /// The child's standard input (``CommandInput``): `/dev/null` unless set.
    public var input: any CommandInput = .nullDevice

    public init(
        _ arguments: [String],
        environment: [(name: String, value: String)] = [],
        workingDirectory: String? = nil,
        timeout: Duration? = nil,
        gracePeriod: Duration = .seconds(5),
        memoryLimit: Int = 256 * 1024
    ) {
        self.init(
            bytes: arguments.map { Array($0.utf8) }, environment: environment, workingDirectory: workingDirectory,
            timeout: timeout, gracePeriod: gracePeriod, memoryLimit: memoryLimit)
    }

    public init(
        bytes arguments: [[UInt8]],
        environment: [(name: String, value: String)] = [],
        workingDirectory: String? = nil,
        timeout: Duration? = nil,
        gracePeriod: Duration = .seconds(5),
        memoryLimit: Int = 256 * 1024
    ) {
        precondition(!arguments.isEmpty, "a Command needs at least the program in its arguments")
        self.argumentBytes = arguments
        self.environment = environment
        self.workingDirectoryBytes = workingDirectory.map { Array($0.utf8) }
        self.timeout = timeout
        self.gracePeriod = gracePeriod
        self.memoryLimit = memoryLimit
        self.spillDirectory = nil
    }

    /// This command with its environment changed: a value sets (or replaces) the variable, `nil`
    /// removes it from the caller's environment.
    ///
    ///     Command(["make"]).updatingEnvironment(["CI": "1", "MAKEFLAGS": nil])
    public func updatingEnvironment(_ changes: KeyValuePairs<String, String?>) -> Command {
        var command = self
        for (name, value) in changes {
            command.environment.removeAll { $0.name == name }
            if let value {
                command.environment.append((name, value))
                command.removedEnvironment.remove(name)
            } else {
                command.removedEnvironment.insert(name)
            }
        }
        return command
    }

    /// `shell -c line`: the line is run by the shell, exactly as typed.
    public static func shell(_ line: String, shell: String = "/bin/sh") -> Command {
        Command([shell, "-c", line])
    }

    /// `shell -c line` for a line given as bytes.
    public static func shell(bytes line: [UInt8], shell: String = "/bin/sh") -> Command {
        Command(bytes: [Array(shell.utf8), Array("-c".utf8), line])
    }

    /// Starts the command on the shared ``ProcessEngine`` and returns its result's future. Never
    /// blocks longer than the spawn. Cancelling the future stops the process group.
    public func run() -> Future<CommandResult> {
        run(on: .shared)
    }

    /// Starts the command on `engine` (see ``run()``).
    public func run(on engine: ProcessEngine) -> Future<CommandResult> {
        engine.start(self).result
    }
}
