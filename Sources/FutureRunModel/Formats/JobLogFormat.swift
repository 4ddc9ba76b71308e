/// GNU parallel's joblog, written by `--joblog` and read back by `--resume` and `--shard-timings`:
/// one type for both ways, so the writer's column is the reader's. A tab-separated header, then a
/// line per job: `Seq Host Starttime JobRuntime Send Receive Exitval Signal Command`.
package enum JobLogFormat {
    package static let header = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"

    /// One job's line.
    package struct Record: Sendable, Equatable {
        package var number: Int
        package var host: String
        package var start: Double
        /// Seconds, finite and not negative.
        package var runtime: Double
        package var received: Int
        /// The exit status; -1 for a job futurerun (or GNU parallel) killed, as on a timeout.
        package var exit: Int
        package var signal: Int
        package var command: String

        package var succeeded: Bool { exit == 0 && signal == 0 }

        package init(
            number: Int, host: String, start: Double, runtime: Double, received: Int, exit: Int, signal: Int, command: String
        ) {
            self.number = number
            self.host = host
            self.start = start
            self.runtime = runtime
            self.received = received
            self.exit = exit
            self.signal = signal
            self.command = command
        }
    }

    /// `record` as a line, as GNU parallel writes it (runtime padded to 10, a newline in the
    /// command written as a space so that one job is one line).
    package static func line(_ record: Record) -> String {
        let runtime = String(format3: record.runtime)
        let padded = String(repeating: " ", count: max(0, 10 - runtime.count)) + runtime
        let command = record.command.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
        return "\(record.number)\t\(record.host)\t\(String(format3: record.start))\t\(padded)\t0\t\(record.received)"
            + "\t\(record.exit)\t\(record.signal)\t\(command)\n"
    }

    /// The records of `text` (futurerun's joblog, GNU parallel's, concatenated ones, with CRLF or
    /// LF line ends, a last line with or without its newline), and how many lines were not records:
    /// too few columns, or a number, time or status that is not one (a runtime must be a finite,
    /// non-negative count of seconds below ``Durations/longest``). Header lines are neither.
    package static func decode(_ text: String) -> (records: [Record], skipped: Int) {
        var records: [Record] = []
        var skipped = 0
        for line in TextFile.lines(text) where !line.isEmpty && !line.hasPrefix("Seq\t") {
            let fields = line.split(separator: "\t", maxSplits: 8, omittingEmptySubsequences: false)
            guard fields.count == 9, let number = Int(fields[0]), number >= 1, let start = Double(fields[2]), start.isFinite,
                let runtime = Durations.seconds(fields[3].drop { $0 == " " }), let received = Int(fields[5]),
                let exit = Int(fields[6]), let signal = Int(fields[7])
            else {
                skipped += 1
                continue
            }
            records.append(
                Record(
                    number: number, host: String(fields[1]), start: start, runtime: runtime, received: received, exit: exit,
                    signal: signal, command: String(fields[8])))
        }
        return (records, skipped)
    }
}

/// What the report readers take as a job's time.
package enum Durations {
    /// The longest time taken as a job's (about 31 years): past it a figure is no duration.
    package static let longest = 1e9

    /// `text` as seconds, if it is a finite number from 0 to ``longest``.
    package static func seconds(_ text: Substring) -> Double? {
        guard let value = Double(text) else { return nil }
        return seconds(value)
    }

    package static func seconds(_ value: Double) -> Double? {
        value.isFinite && value >= 0 && value <= longest ? value : nil
    }
}
