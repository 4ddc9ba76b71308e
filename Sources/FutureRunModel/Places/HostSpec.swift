/// One machine to run jobs on, as `-S/--hosts` and `--hosts-file` name it: `[N/]DEST`, where DEST
/// is what `ssh` takes (an alias of the user's ssh config, `host`, `user@host`) and N its slots;
/// `:` is this machine.
package struct HostSpec: Sendable, Equatable {
    /// What `ssh` is given, or `:` for this machine.
    package let destination: String
    /// How many of its jobs run at once, when `N/` says; otherwise `-j`, or the machine's CPUs.
    package let slots: Int?

    package var isLocal: Bool { destination == ":" }

    /// How the host is named in notices, status lines and reports.
    package var name: String { destination }

    /// Parses one `[N/]DEST`.
    package static func parse(_ text: String) throws(UsageError) -> HostSpec {
        let expected = "[N/]DEST: an ssh destination (host, user@host, an ssh config alias) or : for this machine, as in 4/build1"
        var destination = Substring(text)
        var slots: Int?
        if let slash = text.firstIndex(of: "/"), text[..<slash].allSatisfy(\.isNumber) {
            guard let count = Int(text[..<slash]), count > 0 else {
                throw .invalidValue(option: "--hosts", value: text, expected: "1 or more slots before the /, as in 4/build1")
            }
            slots = count
            destination = text[text.index(after: slash)...]
        }
        // A destination that starts with '-' would reach ssh as an option.
        guard !destination.isEmpty, !destination.hasPrefix("-"),
            !destination.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false })
        else { throw .invalidValue(option: "--hosts", value: text, expected: expected) }
        return HostSpec(destination: String(destination), slots: slots)
    }

    /// The hosts of one `-S` value: a comma-separated list.
    package static func parseList(_ text: String) throws(UsageError) -> [HostSpec] {
        var hosts: [HostSpec] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            hosts.append(try parse(part.trimmingWhitespace()))
        }
        return hosts
    }

    /// The hosts of `-S`, then those of `--hosts-file` lines (`#` starts a comment, blank lines are
    /// skipped). A host named twice is refused.
    package static func list(_ given: [HostSpec], fileLines: [String]) throws(UsageError) -> [HostSpec] {
        var all = given
        for line in fileLines {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmingWhitespace()
            if !trimmed.isEmpty { all.append(try parse(trimmed)) }
        }
        var hosts: [HostSpec] = []
        for host in all {
            guard !hosts.contains(where: { $0.destination == host.destination }) else {
                throw .invalidValue(
                    option: "--hosts", value: host.destination, expected: "each host once (give N/ for more slots)")
            }
            hosts.append(host)
        }
        return hosts
    }
}

extension StringProtocol {
    package func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
