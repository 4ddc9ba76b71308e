import FutureRunEngine
import FutureRunModel
import Glibc

/// `--results` in GNU's grammar, in GNU parallel's layouts (futurerun's own is
/// ``ResultsDirectory``), the jobs' output written there only, as GNU parallel does:
/// - `--results DIR`: for each job, `DIR/1/A1/2/A2/…` (each input source's number, then its
///   argument as a folder name, ``folderName(_:)``) holding `seq`, `stdout` and `stderr`; the
///   folder is written over by a later run, as GNU does.
/// - `--results FILE.csv` / `.tsv` / `.json`: one table with a row per job (Seq, Host,
///   Starttime, JobRuntime, Send, Receive, Exitval, Signal, Command, the arguments, Stdout,
///   Stderr), the job's output held until it ends.
package final class GNUResults: Report {
    package enum Layout: Equatable {
        case tree
        case table(Table)
    }

    package enum Table: Equatable {
        case csv, tsv, json
    }

    private let path: String
    private let layout: Layout
    private var open: [Int: (out: ReportFile, err: ReportFile)] = [:]
    /// Tables: each running job's output, held until its row is written.
    private var held: [Int: (out: [UInt8], err: [UInt8])] = [:]
    private let table: ReportFile?
    private var wroteHeader = false
    package private(set) var error: String?

    package init(path: String) throws(UsageError) {
        self.path = path
        layout = Self.layout(of: path)
        table = layout == .tree ? nil : try ReportFile(path: path, append: false)
        if layout == .tree, !Self.makeFolders(path) {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The layout GNU parallel picks for `path`: a table by its extension, else a folder tree.
    static func layout(of path: String) -> Layout {
        if path.hasSuffix(".csv") { return .table(.csv) }
        if path.hasSuffix(".tsv") { return .table(.tsv) }
        if path.hasSuffix(".json") { return .table(.json) }
        return .tree
    }

    /// An argument as GNU parallel names its folder: `+` as `++`, `/` as `+z`; the empty string,
    /// `.` and `..` as `+m`, `+_` and `+__`.
    static func folderName(_ argument: [UInt8]) -> [UInt8] {
        switch argument {
        case []: return Array("+m".utf8)
        case [0x2E]: return Array("+_".utf8)
        case [0x2E, 0x2E]: return Array("+__".utf8)
        default:
            return argument.flatMap { byte -> [UInt8] in
                switch byte {
                case UInt8(ascii: "+"): Array("++".utf8)
                case UInt8(ascii: "/"): Array("+z".utf8)
                default: [byte]
                }
            }
        }
    }

    /// A job's folder below the results folder: each source's number and its argument.
    package static func folder(for arguments: [[UInt8]]) -> [UInt8] {
        arguments.enumerated().flatMap { index, argument in
            [0x2F] + Array("\(index + 1)".utf8) + [0x2F] + folderName(argument)
        }
    }

    /// Both streams, as GNU parallel prints neither with `--results`.
    package func takes(stderr: Bool) -> Bool { true }

    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        guard layout == .tree else {
            if isError {
                held[job.number, default: ([], [])].err += bytes
            } else {
                held[job.number, default: ([], [])].out += bytes
            }
            return
        }
        guard let files = files(for: job) else { return }
        if isError { files.err.write(bytes) } else { files.out.write(bytes) }
    }

    package func finished(_ outcome: JobOutcome) {
        guard !outcome.status.neverRan else { return }
        switch layout {
        case .tree:
            guard let files = files(for: outcome.job) else { return }
            open[outcome.job.number] = nil
            for file in [files.out, files.err] where file.error != nil { error = error ?? file.error }
            let folder = String(decoding: Array(path.utf8) + Self.folder(for: outcome.job.arguments), as: UTF8.self)
            do {
                let seq = try ReportFile(path: folder + "/seq", append: false)
                seq.write("\(outcome.job.number)")
                error = error ?? seq.error
            } catch {
                self.error = self.error ?? error.description
            }
        case .table(let kind):
            guard let table else { return }
            let output = held.removeValue(forKey: outcome.job.number) ?? ([], [])
            if !wroteHeader, kind != .json {
                wroteHeader = true
                let columns =
                    ["Seq", "Host", "Starttime", "JobRuntime", "Send", "Receive", "Exitval", "Signal", "Command"]
                    + outcome.job.arguments.indices.map { "V\($0 + 1)" } + ["Stdout", "Stderr"]
                table.write(columns.joined(separator: kind == .csv ? "," : "\t") + "\n")
            }
            table.write(Self.row(outcome, stdout: output.out, stderr: output.err, kind))
            error = error ?? table.error
        }
    }

    /// A job's row: GNU's CSV quoting (a field holding a quote, a blank or the separator quoted,
    /// its quotes doubled), or GNU's JSON object on one line.
    package static func row(_ outcome: JobOutcome, stdout: [UInt8], stderr: [UInt8], _ kind: Table) -> String {
        let result = outcome.result
        let numbers = [
            "\(outcome.job.number)", outcome.host ?? ":", String(format3: result.startTime),
            String(format3: result.wallTime.seconds), "0", "\(stdout.count)", "\(result.exitCode ?? -1)",
            "\(result.signal ?? 0)",
        ]
        let command = String(decoding: outcome.commandLine, as: UTF8.self)
        let arguments = outcome.job.arguments.map { String(decoding: $0, as: UTF8.self) }
        let (out, err) = (String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        guard kind != .json else {
            let fields = ["Seq", "Host", "Starttime", "JobRuntime", "Send", "Receive", "Exitval", "Signal"]
            let head = zip(fields, numbers).map { name, value in
                "\"\(name)\": " + (name == "Host" ? JSONText.string(value, asGNU: true) : value)
            }
            let values = arguments.map { JSONText.string($0, asGNU: true) }.joined(separator: ",")
            return "{ " + head.joined(separator: ", ")
                + ", \"Command\": \(JSONText.string(command, asGNU: true)), \"V\": [ \(values) ], "
                + "\"Stdout\": \(JSONText.string(out, asGNU: true)), \"Stderr\": \(JSONText.string(err, asGNU: true)) }\n"
        }
        let separator: Character = kind == .csv ? "," : "\t"
        let quoted = { (field: String) -> String in
            let doubled = field.replacing("\"", with: "\"\"")
            let needsQuotes = doubled != field || field.contains { $0.isWhitespace || $0 == separator }
            return needsQuotes ? "\"" + doubled + "\"" : field
        }
        return (numbers + [command] + arguments + [out, err]).map(quoted).joined(separator: String(separator)) + "\n"
    }

    /// The job's `stdout` and `stderr` in its folder, made on its first output.
    private func files(for job: Job) -> (out: ReportFile, err: ReportFile)? {
        if let files = open[job.number] { return files }
        guard error == nil else { return nil }
        let folder = String(decoding: Array(path.utf8) + Self.folder(for: job.arguments), as: UTF8.self)
        guard Self.makeFolders(folder) else {
            error = "cannot create '\(folder)': \(String(cString: strerror(errno)))"
            return nil
        }
        do {
            let files = (
                try ReportFile(path: folder + "/stdout", append: false), try ReportFile(path: folder + "/stderr", append: false)
            )
            open[job.number] = files
            return files
        } catch {
            self.error = error.description
            return nil
        }
    }

    /// `mkdir -p`: whether `folder` is a folder now.
    private static func makeFolders(_ folder: String) -> Bool {
        var made = ""
        for part in folder.split(separator: "/", omittingEmptySubsequences: false) {
            made += (made.isEmpty && !folder.hasPrefix("/") ? "" : "/") + part
            if part.isEmpty { continue }
            if mkdir(made.systemPath, 0o755) != 0, errno != EEXIST { return false }
        }
        var info = stat()
        return stat(folder.systemPath, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
