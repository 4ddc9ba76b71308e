import FutureProcess

/// One job: its number in input order, its label, and how to make its command line.
package struct Job: Sendable {
    package enum Body: Sendable {
        /// A command line: as typed, or a template's, built when the job was read.
        case command([UInt8])
        /// A template that holds the slot (`{%}`) and this job's arguments: built at the start,
        /// once the slot is known (its arguments were checked when the job was read).
        case template(Template, arguments: [[UInt8]])
        /// An input record that cannot be a job (too long, NUL byte): it fails with this reason.
        case invalid(String)
    }

    /// 1-based, in input order.
    package let number: Int
    /// Its whole name: `--names`, else the argument(s), else the command (at most 64 KiB): what
    /// the job sees as `FUTURERUN_NAME`.
    package let name: String
    /// The name shortened to one line of at most 48 characters, for status lines and reports.
    package let label: String
    /// `@NAME after=...`: the jobs this one waits for (its name is then the header's).
    package let header: JobHeader?
    package let body: Body

    /// The most of a name kept, so that `FUTURERUN_NAME` stays far below what one environment
    /// string may hold (128 KiB).
    static let nameLimit = 64 * 1024

    /// What `--tag` puts before each of its lines: the `--tagstring` made for it, else its whole name.
    package var tag: String { tagString ?? name }
    package let tagString: String?

    /// What the job reads on stdin, if not `/dev/null`: with `--pipe` its block.
    package let input: (any CommandInput)?
    /// A template job's arguments, as read (GNU's `--results` names its files by them).
    package let arguments: [[UInt8]]

    package init(
        number: Int, name: String, header: JobHeader? = nil, body: Body, tagString: String? = nil,
        input: (any CommandInput)? = nil, arguments: [[UInt8]] = []
    ) {
        self.input = input
        self.arguments = arguments
        self.number = number
        self.name = header?.name ?? name
        self.label = Job.shorten(self.name)
        self.header = header
        self.body = body
        self.tagString = tagString
    }

    /// At most 48 characters, on one line.
    static func shorten(_ text: String) -> String {
        // The common case, short ASCII without line breaks, needs no Unicode walk.
        let bytes = text.utf8
        if bytes.count <= 48, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 }) { return text }
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return oneLine.count <= 48 ? oneLine : String(oneLine.prefix(47)) + "…"
    }

    /// The shell command line, for the job's slot (`{%}`).
    package func commandLine(slot: Int) -> [UInt8] {
        switch body {
        case .command(let line): line
        case .template(let template, let arguments):
            template.expand(arguments: arguments, jobNumber: number, slot: slot)
        case .invalid: []
        }
    }

    /// Why this job cannot run, if it cannot.
    package var invalidReason: String? {
        if case .invalid(let reason) = body { return reason }
        return nil
    }

    /// The command line as text, for `-v`, `--dry-run` and the reports (slot 1 for `{%}`).
    package var displayCommand: String { String(decoding: commandLine(slot: 1), as: UTF8.self) }
}
