import FutureProcess
import FutureRunModel

/// One attempt of a job as its launcher gets it: what runs, with what, where and for how long,
/// as values. Each launcher makes its own command of it: ``localCommand`` on this machine, a
/// step's `srun` in an allocation, an `ssh` to a host.
package struct AttemptSpec: Sendable {
    /// The job's command line, its replacements filled in for its slot.
    package var line: [UInt8]
    /// The line's words when it needs no shell (``DirectExec``): exec'd as they are.
    package var words: [[UInt8]]?
    package var shell: String
    /// What futurerun tells the job: `FUTURERUN_JOB`, `FUTURERUN_SLOT`, `FUTURERUN_NAME`.
    package var environment: [(name: String, value: String)]
    package var workingDirectory: [UInt8]?
    package var timeout: Duration?
    package var grace: Duration
    /// What it reads on stdin, if not `/dev/null`.
    package var input: (any CommandInput)?

    package init(
        line: [UInt8], words: [[UInt8]]? = nil, shell: String, environment: [(name: String, value: String)] = [],
        workingDirectory: [UInt8]? = nil, timeout: Duration? = nil, grace: Duration, input: (any CommandInput)? = nil
    ) {
        (self.line, self.words, self.shell, self.environment) = (line, words, shell, environment)
        (self.workingDirectory, self.timeout, self.grace, self.input) = (workingDirectory, timeout, grace, input)
    }

    /// The command that runs it on this machine: its words exec'd, or its line in its shell.
    var localCommand: Command {
        var command = words.map { Command(bytes: $0) } ?? Command.shell(bytes: line, shell: shell)
        command.environment = environment
        command.workingDirectoryBytes = workingDirectory
        command.timeout = timeout
        command.gracePeriod = grace
        if let input { command.input = input }
        return command
    }
}
