import FutureRunModel

/// How a job reaches a remote `/bin/sh -c` unchanged, whatever the remote login shell (sh, bash,
/// zsh, fish, csh): the `ssh` command line carries only ``launcher``, the same text for every job,
/// and the job itself travels on ssh's standard input as a ``payload``.
///
/// sshd runs the command line through the user's login shell. The launcher is one single-quoted
/// word for `/bin/sh` without `'`, `\`, `!` or a newline, so every one of those shells passes it
/// through as it is. It reads the payload (a line count, then that many lines: a POSIX sh script
/// that futurerun quoted for `/bin/sh` alone) and runs it in the same shell. The script keeps a
/// watcher on the rest of standard input, which futurerun holds open while the job runs
/// (``HeldOpenInput``): when the connection ends (the job was stopped, its `ssh` killed, or
/// futurerun died), the watcher's read ends and it sends SIGTERM to the remote process group, then
/// SIGKILL after the grace period. sshd makes each session a group of its own, so that group is
/// the job's whole remote process tree.
package enum RemoteInvocation {
    /// The command line ssh sends for every job (safe in any login shell; see the type's comment).
    package static let launcher =
        "exec /bin/sh -c '"
        + "exec 3<&0 </dev/null;n=$(echo;echo .);n=${n%.};IFS= read -r c <&3||exit 255;s=;i=0;"
        + "while [ \"$i\" -lt \"$c\" ];do IFS= read -r l <&3||exit 255;s=$s$l$n;i=$((i+1));done;"
        + "eval \"$s\"' futurerun"

    /// The first session of a host's connection: says how many CPUs the host has (a line
    /// `futurerun-cpus=N`, whatever a login shell's start-up files print before it), then reads its
    /// standard input to the end. futurerun holds that open for the whole run (``HeldOpenInput``):
    /// the session, and with it the connection, lasts exactly as long as futurerun does.
    static let connectionSession =
        "exec /bin/sh -c 'echo futurerun-cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN); exec cat >/dev/null'"

    /// The CPU count in a connection's output so far (``connectionSession``), once its line is whole.
    package static func cpus(inConnectionOutput bytes: [UInt8]) -> Int? {
        let marker = Array("futurerun-cpus=".utf8)
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).dropLast(bytes.last == 0x0A ? 0 : 1) {
            guard line.starts(with: marker) else { continue }
            let digits = line.dropFirst(marker.count).filter { $0 != 0x0D }
            if let cpus = Int(String(decoding: digits, as: UTF8.self)), cpus > 0 { return cpus }
        }
        return nil
    }

    /// The bytes sent on the job's standard input: the line count of the script, then the script,
    /// which sets the job's environment and directory and runs `shell -c command` under the watcher.
    ///
    /// - Parameters:
    ///   - environment: variables to set (value, bytes as they are: a value need not be UTF-8) or
    ///     unset (`nil`) for the job, in order.
    ///   - grace: between the watcher's SIGTERM and SIGKILL.
    static func payload(
        command: [UInt8], shell: String, environment: [(name: String, value: [UInt8]?)], workingDirectory: [UInt8]?,
        grace: Duration
    ) -> [UInt8] {
        var script: [UInt8] = []
        script.reserveCapacity(command.count + 512)
        let seconds = String(format3: grace.seconds)
        script += Array(
            """
            (trap '' TERM; while read -r _; do :; done; kill -TERM 0; sleep \(seconds); kill -KILL 0) <&3 >/dev/null 2>&1 &
            w=$!
            exec 3<&-

            """.utf8)
        script += JobScript.prelude(environment: environment, workingDirectory: workingDirectory)
        script += ShellQuoting.word(Array(shell.utf8)) + Array(" -c ".utf8) + ShellQuoting.word(command) + [0x0A]
        script += Array("r=$?\nkill -KILL \"$w\" 2>/dev/null\nexit \"$r\"\n".utf8)
        return JobScript.counted(script)
    }
}
