/// `--load N`, as GNU parallel has it: a job starts only while fewer than N processes are running
/// or waiting for the disk right now (not the load average, which trails by a minute), and at most
/// one at a time, so that no burst of starts pushes the load past N.
struct LoadAdmission: Equatable {
    /// N.
    let limit: Int

    /// How many more may start when `busy` processes run or wait (this one's reading among them).
    func more(busy: Int) -> Int { busy - 1 < limit ? 1 : 0 }

    /// `procs_running` + `procs_blocked` of `/proc/stat`'s text.
    static func busy(stat text: String) -> Int? {
        var running: Int?
        var blocked: Int?
        for line in text.split(separator: "\n") where line.hasPrefix("procs_") {
            let words = line.split(separator: " ")
            guard words.count == 2, let count = Int(words[1]) else { continue }
            if words[0] == "procs_running" { running = count }
            if words[0] == "procs_blocked" { blocked = count }
        }
        guard let running, let blocked else { return nil }
        return running + blocked
    }
}
