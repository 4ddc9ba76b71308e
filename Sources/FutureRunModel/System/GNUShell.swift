import Glibc

/// The shell GNU parallel runs jobs with, for `--gnu`'s grammar: `$PARALLEL_SHELL`, else the
/// shell that started futurerun (its parent process), else `$SHELL`, else `/bin/sh`. Only
/// Bourne-family shells are taken (the quoting model holds in them); a csh or fish in their place
/// is passed over.
package enum GNUShell {
    static let bourneFamily: Set<String> = ["sh", "dash", "bash", "zsh", "ksh", "ksh93", "mksh", "ash", "yash"]

    /// The first of the candidates that is a Bourne-family shell, else `/bin/sh`.
    static func choose(parallelShell: String?, parent: String?, loginShell: String?) -> String {
        for candidate in [parallelShell, parent, loginShell].compactMap({ $0 }) where !candidate.isEmpty {
            let name = candidate.split(separator: "/").last.map(String.init) ?? candidate
            if bourneFamily.contains(name) { return candidate }
        }
        return "/bin/sh"
    }

    /// For this process: its environment and its parent's program (`/proc/PPID/exe`).
    package static func current() -> String {
        var target = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(getppid())/exe", &target, target.count - 1)
        let parent = length > 0 ? String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        return choose(
            parallelShell: getenv("PARALLEL_SHELL").map { String(cString: $0) }, parent: parent,
            loginShell: getenv("SHELL").map { String(cString: $0) })
    }

    /// Whether the environment holds a function bash exported (`export -f`: `BASH_FUNC_name%%`).
    static func bashFunctionsExported() -> Bool { !exportedFunctions().isEmpty }

    /// The names of the functions bash exported into this process's environment.
    package static func exportedFunctions() -> [String] {
        var names: [String] = []
        var entry = environ
        while let text = entry.pointee {
            if strncmp(text, "BASH_FUNC_", 10) == 0 {
                names.append(String(String(cString: text + 10).prefix { $0 != "%" && $0 != "=" }))
            }
            entry += 1
        }
        return names
    }
}
