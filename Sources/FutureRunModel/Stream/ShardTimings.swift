/// How long each job took in an earlier run, read from that run's `--joblog`, `--json` or
/// `--junit` (concatenated shard joblogs too), by job name and by command, through each format's
/// own reader (``JobLogFormat``, ``JSONLinesFormat``, ``JUnitFormat``).
package struct ShardTimings: Sendable, Equatable {
    private(set) var byName: [String: Double] = [:]
    private(set) var byCommand: [String: Double] = [:]
    /// Records read, and records left out (not a finite, non-negative time).
    package private(set) var used = 0
    package private(set) var skipped = 0

    /// The expected seconds of a job, if the timings know it: by its whole name, by its label (the
    /// name as `--junit` writes it), or by its command.
    package func seconds(name: String, command: String) -> Double? {
        byName[name] ?? byName[Job.shorten(name)] ?? byCommand[command]
    }

    /// The mean of every time read (1 s when there are none).
    package var mean: Double {
        let all = Array(byName.values) + Array(byCommand.values)
        return all.isEmpty ? 1 : all.reduce(0, +) / Double(all.count)
    }

    /// Reads `text`, whichever of the three formats it is; `nil` if it is none of them.
    package static func parse(_ text: String) -> ShardTimings? {
        let trimmed = text.drop { $0.isWhitespace }
        var timings = ShardTimings()
        if trimmed.hasPrefix("<") {
            let (records, skipped) = JUnitFormat.decode(text)
            for record in records { timings.byName[record.name] = record.seconds }
            (timings.used, timings.skipped) = (records.count, skipped)
        } else if trimmed.hasPrefix("{") {
            let (records, skipped) = JSONLinesFormat.decode(text)
            for record in records {
                if let name = record.name { timings.byName[name] = record.wall }
                if let command = record.command { timings.byCommand[command] = record.wall }
            }
            (timings.used, timings.skipped) = (records.count, skipped)
        } else if trimmed.hasPrefix("Seq\t") {
            let (records, skipped) = JobLogFormat.decode(text)
            for record in records { timings.byCommand[record.command] = record.runtime }
            (timings.used, timings.skipped) = (records.count, skipped)
        } else {
            return nil
        }
        return timings
    }

    /// What to say when records were left out, or none was read: one line.
    package func notice(path: String) -> String? {
        guard skipped > 0 || used == 0 else { return nil }
        return "--shard-timings \(path): used \(used) records, skipped \(skipped) without a finite, non-negative time"
            + (used == 0 ? "; every job counts the same" : "")
    }
}
