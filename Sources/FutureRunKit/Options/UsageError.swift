/// Everything that makes futurerun refuse to run, each with a one-line message that says what is
/// wrong and what to do. All of them exit with status 255 before any job starts.
public enum UsageError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case missingValue(option: String, example: String)
    case invalidValue(option: String, value: String, expected: String)
    case noTemplate
    case emptySegment(position: Int)
    case unreadableFile(path: String, reason: String)
    case conflictingOptions(String, String)
    case noCommand
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownOption(let option):
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
        }
    }
}
