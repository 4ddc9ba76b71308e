import FutureRunModel

/// The shell side of a warm shell (``WarmShells``): how it is started and what it reads for each
/// job. It reads the jobs from the pipe it was given as stdin, through a descriptor of its own
/// that no job inherits, and makes its stdin, and so each job's, `/dev/null`; every descriptor
/// futurerun's caller gave stays as it was. Each job's line is evaluated by `eval`, as `sh -c` would
/// run it: its errors read `/bin/sh: 1: …` (dash) or `/bin/bash: line 1: …` (bash), as they do
/// in a shell of its own, and `$0` is the shell's path. After the job, its status is framed on
/// stdout (``SlotFrames``); what it wrote to stderr is in the shell's stderr pipe by then. A job
/// sent *behind* another (while that one still runs) first marks its beginning on stderr, where
/// the one before it may still be writing when its status is read.
///
/// dash reads the pipe as a script (`.`, which opens a descriptor of its own, close-on-exec), a
/// block at a time. bash's `.` reads a whole file before it runs any of it, so bash runs a loop
/// that reads each job's parts up to a NUL from a descriptor it picks (`{fd}`), closed for the
/// job (its `read` takes a byte at a time, as bash reads any pipe): the way, the job's
/// variables, its line.
package struct WarmShellScript: Sendable {
    package enum Dialect: Sendable { case dash, bash }

    let dialect: Dialect
    /// The shell's path, its `$0`.
    package let shell: String
    /// Marks each job's end in the shell's streams: random, so no job's output holds it.
    package let token: String

    /// The shell's command line; its stdin is the pipe the jobs come through.
    package var arguments: [String] {
        switch dialect {
        case .dash:
            return [shell, "-c", ". /dev/fd/0", shell]
        case .bash:
            // One line: bash counts an evaluated line's number from the line of its `eval`.
            let read = "IFS= read -r -d '' -u \"$_futurerun_fd\""
            let loop =
                "exec {_futurerun_fd}<&0 </dev/null; while \(read) _futurerun_way && \(read) _futurerun_env"
                + " && \(read) _futurerun_job; do eval \"$_futurerun_env\"; if [ \"$_futurerun_way\" = s ];"
                + " then (eval \"$_futurerun_job\") {_futurerun_fd}<&-; else eval \"$_futurerun_job\" {_futurerun_fd}<&-;"
                + " fi; \(frames); done"
            return [shell, "-c", loop, shell]
        }
    }

    /// What the shell reads first: dash's stdin becomes `/dev/null` (it reads on from its own
    /// descriptor).
    var prologue: [UInt8] { dialect == .dash ? Array("exec </dev/null\n".utf8) : [] }

    /// After a job: its status framed on stdout. No newline first: a job's last line is its own,
    /// and comes as soon as it is written.
    private let frames: String
    /// Before a job sent behind another: a frame on stderr, which ends that one's stderr.
    private let beginMark: String

    package init(dialect: Dialect, shell: String, token: String) {
        self.dialect = dialect
        self.shell = shell
        self.token = token
        frames = "printf '\\036%s s %s\\n' \(token) $?"
        beginMark = "printf '\\036%s s 0\\n' \(token) >&2; "
    }

    /// What the shell reads for a job: its beginning marked if it is sent `behind` another, its
    /// variables exported, its line evaluated (in a subshell if `way` says), its end framed.
    package func job(
        _ line: [UInt8], environment: [(name: String, value: String)], way: WarmShellFit.Way, behind: Bool = false
    ) -> [UInt8] {
        var script: [UInt8] = []
        script.reserveCapacity(line.count + 2 * token.utf8.count + 160)
        switch dialect {
        case .dash:
            if behind { script += beginMark.utf8 }
            script += "export".utf8
            for (name, value) in environment { script += Self.assignment(name, value) }
            script += way == .inSubshell ? "\n(eval ".utf8 : "\neval ".utf8
            script += ShellQuoting.word(line)
            script += way == .inSubshell ? ")\n".utf8 : "\n".utf8
            script += frames.utf8
            script += "\n".utf8
        case .bash:
            script += way == .inSubshell ? "s\0".utf8 : "p\0".utf8
            if behind { script += beginMark.utf8 }
            script += "export".utf8
            for (name, value) in environment { script += Self.assignment(name, value) }
            script.append(0)
            script += line
            script.append(0)
        }
        return script
    }

    /// ` NAME='value'`.
    private static func assignment(_ name: String, _ value: String) -> [UInt8] {
        Array(" \(name)=".utf8) + ShellQuoting.word(Array(value.utf8))
    }
}
