/// One job: its number in input order, its label, and how to make its command line.
public struct Job: Sendable {
    enum Body: Sendable {
        /// A command line: as typed, or a template's, built when the job was read.
        case command([UInt8])
        /// A template that holds the slot (`{%}`) and this job's arguments: built at the start,
        /// once the slot is known (its arguments were checked when the job was read).
        case template(Template, arguments: [[UInt8]])
        /// An input record that cannot be a job (too long, NUL byte): it fails with this reason.
        case invalid(String)
    }

    /// 1-based, in input order.
    public let number: Int
    /// What the status lines call it: `--names`, else the argument(s), else the command.
    public let label: String
    let body: Body

    /// The shell command line, for the job's slot (`{%}`).
    public func commandLine(slot: Int) -> [UInt8] {
        switch body {
        case .command(let line): line
        case .template(let template, let arguments):
            (try? template.expand(arguments: arguments, jobNumber: number, slot: slot)) ?? []
        case .invalid: []
        }
    }

    /// Why this job cannot run, if it cannot.
    public var invalidReason: String? {
        if case .invalid(let reason) = body { return reason }
        return nil
    }

    /// The command line as text, for `-v`, `--dry-run` and the reports (slot 1 for `{%}`).
    public var displayCommand: String { String(decoding: commandLine(slot: 1), as: UTF8.self) }
}
