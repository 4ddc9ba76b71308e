import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel

/// `--json FILE`: JSON Lines, one object per finished job (``JSONLinesFormat``).
package final class JSONLines: Report {
    private let file: ReportFile

    package init(path: String) throws(UsageError) {
        file = try ReportFile(path: path, append: false)
    }

    package var error: String? { file.error }

    package func finished(_ outcome: JobOutcome) {
        file.write(JSONLinesFormat.object(outcome) + "\n")
    }
}
