import FutureCore
import FutureProcess
import Glibc
import TestSupport

/// The `futurerun` binary under test: `$FUTURERUN_BINARY` if set (`make test` also runs this suite
/// against the release binary), else the one built next to this test bundle.
let futurerunPath: String = {
    if let chosen = getenv("FUTURERUN_BINARY"), chosen.pointee != 0 { return String(cString: chosen) }
    var path = CommandLine.arguments[0]
    while !path.isEmpty, !path.hasSuffix("/debug"), !path.hasSuffix("/release") {
        path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }
    return path + "/futurerun"
}()

/// One finished run of the binary.
struct Outcome {
    let status: Int32
    let stdout: [UInt8]
    let stderrBytes: [UInt8]
    let wall: Duration

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderrBytes, as: UTF8.self) }
    var errLines: [String] { err.split(separator: "\n").map(String.init) }
}

/// A `shellPrefix` that starts what follows with SIGINT and SIGQUIT at their defaults, whatever the
/// test runner has: started in the background by a non-interactive shell, it ignores them, and a
/// test that compares signal dispositions would see that instead of what it sets up. Use with
/// `exec: false`; what follows is a command (`/bin/sh -c …` for shell code).
let withDefaultSignals = "exec env --default-signal=INT,QUIT "

/// Shell code that waits until the file `path` (a shell word, expanded by the shell) exists: up to
/// a minute, only a guard against a hang. Tests and their jobs wait this way for what another
/// process makes, never for a fixed time: on a loaded machine a job may start late, and a signal
/// that comes before it tests something else.
func untilExists(_ path: String) -> String {
    "i=0; while [ ! -e \(path) ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done"
}

/// Runs futurerun with `arguments`, optionally fed `stdin`, through `sh -c` (so `shellPrefix` and
/// `shellSuffix` can add redirections or a pipe). The environment is the tests' own, with CI
/// detection switched off unless `environment` says otherwise.
func futurerun(
    _ arguments: [String], stdin: String? = nil, environment: [(name: String, value: String)] = [],
    shellPrefix: String = "", shellSuffix: String = "", directory: String? = nil, exec: Bool = true
) -> Outcome {
    var line =
        shellPrefix + (exec ? "exec " : "") + ([futurerunPath] + arguments).map(quoted).joined(separator: " ") + shellSuffix
    if let stdin {
        line =
            "printf '%s' \(quoted(stdin)) | "
            + (shellPrefix + ([futurerunPath] + arguments).map(quoted).joined(separator: " ") + shellSuffix)
    }
    var command = Command.shell(line)
    command.environment = [("CI", ""), ("GITHUB_ACTIONS", ""), ("GITLAB_CI", ""), ("NO_COLOR", "")] + environment
    command.workingDirectory = directory
    command.timeout = .seconds(120)
    let result = command.run().value
    return Outcome(
        status: result.status.shellStatus, stdout: result.stdout.bytes(), stderrBytes: result.stderr.bytes(),
        wall: result.wallTime)
}

/// Each job's recorded start and end (`date +%s%N` in `start.N` and `end.N` of `scratch`), 0 for
/// a stamp not written.
func stamps(_ scratch: Scratch, _ jobs: ClosedRange<Int>) -> [(start: Int, end: Int)] {
    jobs.map { job in
        (
            Int(scratch.read("start.\(job)")?.filter(\.isNumber) ?? "") ?? 0,
            Int(scratch.read("end.\(job)")?.filter(\.isNumber) ?? "") ?? 0
        )
    }
}

/// The most jobs running at once, from their stamps: at each job's start, the jobs that have
/// started and not ended (itself included).
func mostAtOnce(_ times: [(start: Int, end: Int)]) -> Int {
    times.map { job in times.filter { $0.start <= job.start && job.start < $0.end }.count }.max() ?? 0
}

/// Whether a process whose command line contains `marker` is alive.
func processAlive(_ marker: String) -> Bool {
    // "[s]leep" matches "sleep" but not this pgrep's own shell, whose command line holds "[s]leep".
    let pattern = "[" + String(marker.prefix(1)) + "]" + marker.dropFirst()
    let result = Command.shell("pgrep -f \(quoted(pattern)) >/dev/null").run().value
    return result.status == .exited(0)
}

/// A real terminal: a detached tmux session of `columns` × `rows` running `command` (with CI
/// detection off), on a tmux server of its own. ``screen`` is what the pane shows, as a person
/// would see it.
final class TerminalPane {
    private let socket: String
    static let done = "__PANE_DONE__"

    init(columns: Int, rows: Int, _ command: String) {
        socket = "futurerun-test-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let line =
            "env -u CI -u GITHUB_ACTIONS -u GITLAB_CI NO_COLOR=1 TERM=xterm sh -c \(quoted(command)); echo \(Self.done); sleep 60"
        _ = Command(["tmux", "-L", socket, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", line]).run().value
    }

    /// The pane's rows, trailing blank rows dropped.
    var screen: [String] {
        let result = Command(["tmux", "-L", socket, "capture-pane", "-p"]).run().value
        var rows = String(decoding: result.stdout.bytes(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        while rows.last?.isEmpty == true { rows.removeLast() }
        return rows
    }

    /// Waits (at most `seconds`, against a hang) until the command has ended; returns the screen.
    func finished(within seconds: Double = 30) -> [String] {
        _ = eventually(seconds) { screen.contains(Self.done) }
        return screen.filter { $0 != Self.done }
    }

    func send(_ keys: String) { _ = Command(["tmux", "-L", socket, "send-keys", keys]).run().value }

    deinit { _ = Command(["tmux", "-L", socket, "kill-server"]).run().value }

    static var isAvailable: Bool { access("/usr/bin/tmux", X_OK) == 0 }
}

/// A small tmpfs of the test's own (1 MiB unless asked), unmounted when released; `nil` where it
/// cannot be mounted (not root).
final class TinyDisk {
    let path: String

    init?(megabytes: Int = 1, readOnly: Bool = false) {
        guard getuid() == 0, access("/usr/bin/mount", X_OK) == 0 || access("/bin/mount", X_OK) == 0 else { return nil }
        var template = Array("/tmp/futurerun-disk.XXXXXX".utf8CString)
        path = String(cString: mkdtemp(&template)!)
        let options = "size=\(megabytes)m" + (readOnly ? ",ro" : "")
        guard Command.shell("mount -t tmpfs -o \(options) tmpfs \(quoted(path))").run().value.succeeded else {
            rmdir(path)
            return nil
        }
    }

    deinit {
        _ = Command.shell("umount \(quoted(path)); rmdir \(quoted(path))").run().value
    }
}

let canMountTinyDisk = TinyDisk() != nil
