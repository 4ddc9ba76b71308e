import FutureCore
import FutureProcess

/// `--json FILE`: JSON Lines, one object per finished job (``JSONLinesFormat``).
final class JSONLines: Report {
    private let file: ReportFile

    init(path: String) throws(UsageError) {
        file = try ReportFile(path: path, append: false)
    }

    var error: String? { file.error }

    func finished(_ outcome: JobOutcome) {
        file.write(JSONLinesFormat.object(outcome) + "\n")
    }
}
