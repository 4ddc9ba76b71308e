import FutureRunModel

/// A job as a POSIX sh script for a shell that reads it from its standard input (a remote
/// session's, a Slurm slot's worker): the line count, then the lines, so that the reader knows
/// where it ends without an end marker the job could contain.
package enum JobScript {
    /// Lines that set the job's environment (a value as bytes; `nil` unsets) and directory.
    static func prelude(environment: [(name: String, value: [UInt8]?)], workingDirectory: [UInt8]?) -> [UInt8] {
        var script: [UInt8] = []
        for (name, value) in environment {
            if let value {
                script += Array("export \(name)=".utf8) + ShellQuoting.word(value) + [0x0A]
            } else {
                script += Array("unset \(name)\n".utf8)
            }
        }
        if let workingDirectory {
            script += Array("cd -- ".utf8) + ShellQuoting.word(workingDirectory) + Array(" || exit 1\n".utf8)
        }
        return script
    }

    /// `script` with its line count before it, as the readers take it.
    static func counted(_ script: [UInt8]) -> [UInt8] {
        let lines = script.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return Array("\(lines)\n".utf8) + script
    }
}
