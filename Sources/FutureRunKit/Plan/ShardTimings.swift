/// How long each job took in an earlier run, read from that run's `--joblog`, `--json` or
/// `--junit` (concatenated shard joblogs too), by job name and by command.
struct ShardTimings: Sendable, Equatable {
    private(set) var byName: [String: Double] = [:]
    private(set) var byCommand: [String: Double] = [:]

    /// The expected seconds of a job, if the timings know it.
    func seconds(name: String, command: String) -> Double? { byName[name] ?? byCommand[command] }

    /// The mean of every time read (1 s when there are none).
    var mean: Double {
        let all = Array(byName.values) + Array(byCommand.values)
        return all.isEmpty ? 1 : all.reduce(0, +) / Double(all.count)
    }

    /// Reads `text`, whichever of the three formats it is; `nil` if it is none of them.
    static func parse(_ text: String) -> ShardTimings? {
        let trimmed = text.drop { $0 == " " || $0 == "\n" }
        if trimmed.hasPrefix("<") { return junit(text) }
        if trimmed.hasPrefix("{") { return jsonLines(text) }
        if trimmed.hasPrefix("Seq\t") { return joblog(text) }
        return nil
    }

    /// GNU parallel's joblog (futurerun's or parallel's): Command and JobRuntime columns; header
    /// lines of concatenated joblogs are skipped.
    static func joblog(_ text: String) -> ShardTimings {
        var timings = ShardTimings()
        for line in text.split(separator: "\n") where !line.hasPrefix("Seq\t") {
            let fields = line.split(separator: "\t", maxSplits: 8, omittingEmptySubsequences: false)
            guard fields.count == 9, let runtime = Double(fields[3].trimmingPrefixBlanks) else { continue }
            timings.byCommand[String(fields[8])] = runtime
        }
        return timings
    }

    /// futurerun's `--json`: the `name`, `command` and `wall` of each line.
    static func jsonLines(_ text: String) -> ShardTimings {
        var timings = ShardTimings()
        for line in text.split(separator: "\n") {
            guard let wall = JSONField.number("wall", in: line) else { continue }
            if let name = JSONField.string("name", in: line) { timings.byName[name] = wall }
            if let command = JSONField.string("command", in: line) { timings.byCommand[command] = wall }
        }
        return timings
    }

    /// JUnit XML: each `<testcase name=... time=...>`.
    static func junit(_ text: String) -> ShardTimings {
        var timings = ShardTimings()
        for piece in text.split(separator: "<testcase ").dropFirst() {
            guard let name = XMLAttribute.value("name", in: piece),
                let time = XMLAttribute.value("time", in: piece).flatMap(Double.init)
            else { continue }
            timings.byName[name] = time
        }
        return timings
    }
}

extension Substring {
    fileprivate var trimmingPrefixBlanks: Substring { drop { $0 == " " } }
}

/// The few JSON reads a timings file needs: a string or number field of one flat object per line.
enum JSONField {
    static func number(_ key: String, in line: Substring) -> Double? {
        guard let range = line.firstRange(of: "\"\(key)\":") else { return nil }
        return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "e" })
    }

    static func string(_ key: String, in line: Substring) -> String? {
        guard let range = line.firstRange(of: "\"\(key)\":\"") else { return nil }
        var value = ""
        var escaped = false
        for character in line[range.upperBound...] {
            if escaped {
                switch character {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                default: value.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return value
            } else {
                value.append(character)
            }
        }
        return nil
    }
}

/// An attribute of an XML start tag, unescaped.
enum XMLAttribute {
    static func value(_ name: String, in tag: Substring) -> String? {
        guard
            let start = tag.firstRange(of: " \(name)=\"")
                ?? (tag.hasPrefix("\(name)=\"") ? tag.firstRange(of: "\(name)=\"") : nil),
            let end = tag[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(tag[start.upperBound..<end]).replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"").replacing("&apos;", with: "'").replacing("&amp;", with: "&")
    }
}
