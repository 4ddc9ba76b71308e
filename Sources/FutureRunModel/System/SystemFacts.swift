import FutureProcess
import Glibc

/// What a run's decisions read of the machine, gathered in one place (``current()``) so that the
/// decisions themselves (``RunConfiguration``) are functions of values, tested without a machine.
package struct SystemFacts {
    /// CPUs this process may run on.
    package var cpus: Int
    /// The environment variables futurerun itself reads (the jobs get the whole environment).
    package var environment: [String: String]
    /// `ulimit -n`, if it limits at all.
    package var descriptorLimit: Int?
    /// `ulimit -u`, if it limits this user (root is not limited).
    package var processLimit: Int?
    /// Processes and threads of this user now, counted when asked (a scan of `/proc`): asked only
    /// when ``processLimit`` is near.
    package var processesOfUser: () -> Int
    package var stderrIsTerminal: Bool
    /// Stdin is a pipe, or a regular file with bytes in it: data someone meant to be read (GNU
    /// parallel reads it as arguments), not a terminal, `/dev/null` or a socket.
    package var stdinHoldsData: Bool = false
    /// The functions bash exported (`export -f`): the jobs' shell may call them by name.
    package var bashFunctions: [String] = []
    /// Stdin is a terminal: reading jobs from it waits for someone to type them.
    package var stdinIsTerminal = false

    /// This machine, now.
    package static func current() -> SystemFacts {
        SystemFacts(
            cpus: CPUCount.usable(), environment: environment(), descriptorLimit: softLimit(RLIMIT_NOFILE.rawValue),
            processLimit: getuid() == 0 ? nil : softLimit(__RLIMIT_NPROC.rawValue), processesOfUser: processesOfThisUser,
            stderrIsTerminal: isatty(2) == 1, stdinHoldsData: stdinHoldsData(), bashFunctions: GNUShell.exportedFunctions(),
            stdinIsTerminal: isatty(0) == 1)
    }

    /// Lowers this process's priority to `niceness` (its children, the jobs, inherit it).
    package static func lowerPriority(to niceness: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    }

    private static func stdinHoldsData() -> Bool {
        var info = stat()
        guard fstat(0, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFIFO || (kind == S_IFREG && info.st_size > 0)
    }

    /// futurerun's own switch of warm shells (``WarmShellFit``): `off` turns them off, `all` runs
    /// every isolatable line in one.
    package static let warmShellsVariable = "FUTURERUN_WARM_SHELLS"

    /// The names of the variables futurerun reads.
    package static let variables =
        ["MAKEFLAGS", "CI", "TERM", "NO_COLOR", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITLAB_CI", "BASH_ENV"]
        + [warmShellsVariable]
        + Shard.ciVariables.flatMap { [$0.index] + [$0.total].compactMap { $0 } } + Shard.slurmArrayVariables
        + SlurmAllocation.variables

    /// ``variables`` as they are set: `getenv` for each, no copy of the rest.
    private static func environment() -> [String: String] {
        var values: [String: String] = [:]
        for name in variables {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }

    /// Variables with their values here, as bytes (a value need not be UTF-8), `nil` where unset:
    /// `--env`'s, for the hosts.
    package static func values(of names: [String]) -> [(name: String, value: [UInt8]?)] {
        names.map { name in
            (name, getenv(name).map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map(UInt8.init(bitPattern:)) })
        }
    }

    private static func softLimit(_ resource: UInt32) -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(resource), &limit) == 0, limit.rlim_cur < (1 << 40) else { return nil }
        return Int(limit.rlim_cur)
    }

    /// Processes and threads of this user now (each counts against RLIMIT_NPROC).
    private static func processesOfThisUser() -> Int {
        guard let directory = opendir("/proc") else { return 0 }
        defer { closedir(directory) }
        let me = getuid()
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            var info = stat()
            guard stat("/proc/\(name)/task", &info) == 0, info.st_uid == me else { continue }
            count += max(1, Int(info.st_nlink) - 2)
        }
        return count
    }
}
