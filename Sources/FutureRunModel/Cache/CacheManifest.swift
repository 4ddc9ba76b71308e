/// What a job's cache key covers (`--cache`): its final command text, the shell, the working
/// directory, the values of the variables `--cache-env` names and the content of the files
/// `--cache-input` names. The key is the SHA-256 of ``text``; the store keeps the manifest under
/// the job's name, so that `--explain` can say what changed since (``changes(since:)``).
///
/// A plain value: made from what was read (``JobCache`` reads), tested without files.
package struct CacheManifest: Sendable, Equatable {
    /// One file (or pattern) `--cache-input` named for the job.
    package enum Input: Sendable, Equatable {
        /// A file and the SHA-256 of its content.
        case file(path: String, digest: String)
        /// A path that names something that cannot be read as a file (a directory, no permission).
        case unreadable(path: String)
        /// A pattern that matched nothing: a file appearing there changes the key.
        case unmatched(pattern: String)
    }

    /// The SHA-256 of the command text.
    package var command: String
    package var shell: String
    package var directory: String
    /// Each variable `--cache-env` names, with the SHA-256 of its value (`nil`: unset): values
    /// themselves are never stored.
    package var variables: [(name: String, digest: String?)]
    package var inputs: [Input]

    package init(
        command: [UInt8], shell: String, directory: String, variables: [(name: String, digest: String?)], inputs: [Input]
    ) {
        self.command = SHA256.digest(command)
        self.shell = shell
        self.directory = directory
        self.variables = variables
        self.inputs = inputs
    }

    package static func == (a: CacheManifest, b: CacheManifest) -> Bool { a.text == b.text }

    /// The key of the job's entry.
    package var key: String { SHA256.digest(text.utf8) }

    /// One fact a line, in a fixed order: what the key is the hash of, and what the store keeps.
    package var text: String {
        var lines = [Self.magic, "command \(command)", "shell \(Self.escape(shell))", "directory \(Self.escape(directory))"]
        for variable in variables { lines.append("env \(variable.name) \(variable.digest ?? "unset")") }
        for input in inputs {
            switch input {
            case .file(let path, let digest): lines.append("input \(digest) \(Self.escape(path))")
            case .unreadable(let path): lines.append("input unreadable \(Self.escape(path))")
            case .unmatched(let pattern): lines.append("input unmatched \(Self.escape(pattern))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static let magic = "futurerun-cache-manifest 1"

    /// Reads back a ``text``; `nil` if it is not one.
    package init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Self.magic[...], lines.last == "" else { return nil }
        var command: String?
        var shell: String?
        var directory: String?
        var variables: [(name: String, digest: String?)] = []
        var inputs: [Input] = []
        for line in lines.dropFirst().dropLast() {
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            switch (fields.first, fields.count) {
            case ("command", 2): command = fields[1]
            case ("shell", 2): shell = Self.unescape(fields[1])
            case ("directory", 2): directory = Self.unescape(fields[1])
            case ("env", 3): variables.append((fields[1], fields[2] == "unset" ? nil : fields[2]))
            case ("input", 3):
                let path = Self.unescape(fields[2])
                switch fields[1] {
                case "unreadable": inputs.append(.unreadable(path: path))
                case "unmatched": inputs.append(.unmatched(pattern: path))
                default: inputs.append(.file(path: path, digest: fields[1]))
                }
            default: return nil
            }
        }
        guard let command, let shell, let directory else { return nil }
        self.command = command
        self.shell = shell
        self.directory = directory
        self.variables = variables
        self.inputs = inputs
    }

    /// What differs from `old`, the manifest of the entry the job's name had, one clause each:
    /// `the command text changed`, `input data/3.txt changed` (`is new`, `is gone`), `$CC
    /// changed`, `the shell changed (/bin/sh, now /bin/bash)`. Empty when nothing does.
    package func changes(since old: CacheManifest) -> [String] {
        var changes: [String] = []
        if command != old.command { changes.append("the command text changed") }
        if shell != old.shell { changes.append("the shell changed (\(old.shell), now \(shell))") }
        if directory != old.directory {
            changes.append("the working directory changed (\(old.directory), now \(directory))")
        }
        let oldVariables = Dictionary(old.variables.map { ($0.name, $0.digest) }, uniquingKeysWith: { first, _ in first })
        let newVariables = Dictionary(variables.map { ($0.name, $0.digest) }, uniquingKeysWith: { first, _ in first })
        for name in Set(oldVariables.keys).union(newVariables.keys).sorted() where oldVariables[name] != newVariables[name] {
            changes.append("$\(name) changed")
        }
        let oldInputs = Dictionary(old.inputs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newInputs = Dictionary(inputs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(oldInputs.keys).union(newInputs.keys).sorted() {
            switch (oldInputs[name], newInputs[name]) {
            case (nil, .file?), (.unmatched?, .file?): changes.append("input \(name) is new")
            case (.file?, nil), (.file?, .unmatched?): changes.append("input \(name) is gone")
            case (let before?, let now?) where before != now: changes.append("input \(name) changed")
            // A pattern that matches nothing now, or matched nothing before: the files say it.
            default: break
            }
        }
        return changes
    }

    /// `%`, newline and tab as `%25`, `%0A`, `%09`: one fact stays one line.
    private static func escape(_ text: String) -> String {
        text.replacing("%", with: "%25").replacing("\n", with: "%0A").replacing("\t", with: "%09")
    }

    private static func unescape(_ text: String) -> String {
        text.replacing("%09", with: "\t").replacing("%0A", with: "\n").replacing("%25", with: "%")
    }
}

extension CacheManifest.Input {
    /// The path or pattern it is about.
    package var name: String {
        switch self {
        case .file(let path, _), .unreadable(let path): path
        case .unmatched(let pattern): pattern
        }
    }
}
