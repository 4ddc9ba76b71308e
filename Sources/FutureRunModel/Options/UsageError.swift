/// Everything that makes futurerun refuse to run, each with a one-line message that says what is
/// wrong and what to do. All of them exit with status 255 before any job starts.
package enum UsageError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String, suggestion: String? = nil)
    /// A prefix of more than one option's name.
    case ambiguousOption(String, candidates: [String])
    case missingValue(option: String, example: String)
    case invalidValue(option: String, value: String, expected: String)
    case noTemplate
    case emptySegment(position: Int)
    case unreadableFile(path: String, reason: String)
    case conflictingOptions(String, String)
    case noCommand
    case cannotWrite(path: String, reason: String)
    /// `longOption`: the long spelling that takes `=VALUE` (`-C -hx` → `--workdir=-hx`).
    case optionAsValue(option: String, placeholder: String, value: String, longOption: String)
    case jobFileSeparatorMisused
    case needsOption(option: String, needs: String, example: String)
    case needsOneList(String)
    case unrunnableShell(path: String, reason: String)
    /// A replacement string where its argument would not be data; `replacement` and `offset` (from
    /// 1, in bytes) say which, when known.
    case unsafeTemplate(context: String, hint: String, replacement: String = "", offset: Int = 0)
    case unplacedArguments
    /// A form of GNU parallel's that futurerun does not do, and futurerun's way if it has one.
    case gnuForm(form: String, instead: String)
    case sharedReportFile(first: String, second: String, path: String)
    case badJobGraph(String)
    case optionAfterTemplate(String)

    package var description: String {
        switch self {
        case .unknownOption(let option, let suggestion?):
            "unknown option '\(option)': did you mean '\(suggestion)'? (see 'futurerun --help')"
        case .ambiguousOption(let option, let candidates):
            "option '\(option)' is ambiguous: it begins " + candidates.map { "'\($0)'" }.joined(separator: ", ")
                + "; write more of it"
        case .unknownOption(let option, nil):
            "unknown option '\(option)' (see 'futurerun --help'; put the command after '--' if it starts with '-')"
        case .missingValue(let option, let example):
            "option '\(option)' needs a value, for example '\(example)'"
        case .invalidValue(let option, let value, let expected):
            "invalid value '\(value)' for '\(option)': expected \(expected)"
        case .noTemplate:
            "'--each' needs a template, for example: futurerun --each 'gzip {}' *.log"
        case .emptySegment(let position):
            "command \(position) between ':::' is empty: remove the extra ':::' or put a command there"
        case .unreadableFile(let path, let reason):
            "cannot read '\(path)': \(reason)"
        case .conflictingOptions(let first, let second):
            "'\(first)' and '\(second)' cannot be used together"
        case .noCommand:
            "no command given: try futurerun 'make lint' ::: 'make test', or pipe one command per line"
        case .cannotWrite(let path, let reason):
            "cannot write '\(path)': \(reason)"
        case .optionAsValue(let option, let placeholder, let value, let longOption):
            "'\(option)' needs a \(placeholder); '\(value)' is an option (write \(longOption)=\(value) if you mean the value)"
        case .jobFileSeparatorMisused:
            "':::: FILE' takes job lines as the only operands (futurerun :::: jobs.txt), or argument lists after --each TEMPLATE"
        case .needsOption(let option, let needs, let example):
            "'\(option)' works only with \(needs), for example: \(example)"
        case .needsOneList(let option):
            "'\(option)' works with one argument list, not several ':::' or '::::' lists"
        case .unrunnableShell(let path, let reason):
            "cannot run the shell '\(path)': \(reason) (give --shell a path to an executable, such as /bin/bash)"
        case .badJobGraph(let problem):
            problem
        case .optionAfterTemplate(let option):
            "'\(option)' comes after the template, where every word is an argument: put options before --each "
                + "(write -- right after the template to pass arguments that begin with --)"
        case .unsafeTemplate(let context, let hint, let replacement, let offset):
            offset > 0
                ? "\(replacement) at character \(offset) of the template would not be data in \(context): \(hint)"
                : "a replacement string inside \(context) cannot be kept data: \(hint)"
        case .sharedReportFile(let first, let second, let path):
            "'\(first)' and '\(second)' would both write '\(path)': give each report a file of its own"
        case .gnuForm(let form, let instead):
            "GNU parallel's \(form) is not futurerun's: \(instead)"
        case .unplacedArguments:
            "the template ends inside quotes or a here-document, where appended arguments would not be data: put {} where they go"
        }
    }
}
