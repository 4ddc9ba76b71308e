import FutureRunEngine
import FutureRunModel

/// The timeline's picture as SVG text, from the bars alone: a pure function, tested against a
/// checked-in file. Every label and command is XML-escaped text, never markup.
package enum TimelineDrawing {
    package enum Outcome: String, CaseIterable {
        case ok, failed
        case timedOut = "timed out"
        case stopped

        package var color: String {
            switch self {
            case .ok: "#2a9d4a"
            case .failed: "#d62828"
            case .timedOut: "#f77f00"
            case .stopped: "#8d99ae"
            }
        }
    }

    /// One attempt of one job.
    package struct Bar: Equatable {
        package var number: Int
        package var label: String
        package var command: String
        package var outcome: Outcome
        package var detail: String
        package var slot: Int
        /// The host, in a run over hosts (`-S`).
        package var host: String? = nil
        /// Unix time, seconds.
        package var start: Double
        package var wall: Double
        package var cpu: Double
        package var maxResidentBytes: Int
        package var attempt: Int
        package var attempts: Int
        package var critical = false

        package var end: Double { start + wall }
    }

    static let plotWidth = 1000.0
    package static let left = 64.0
    static let rowHeight = 26.0
    package static let top = 56.0

    /// The chain of jobs that set the run's length (indices into `bars`): from the bar that ended
    /// last, back through the prerequisite whose end let each start. Empty without a graph.
    static func criticalPath(_ bars: [Bar], headers: [Int: JobHeader]) -> [Int] {
        guard !headers.isEmpty, let last = bars.indices.max(by: { bars[$0].end < bars[$1].end }) else { return [] }
        // The last attempt of each job, by name.
        var lastAttempt: [String: Int] = [:]
        for (index, bar) in bars.enumerated() where bar.attempt == bar.attempts {
            if let name = headers[bar.number]?.name { lastAttempt[name] = index }
        }
        var path = [last]
        var current = last
        while let header = headers[bars[current].number] {
            let gates = header.prerequisites.compactMap { lastAttempt[$0] }
            guard let gate = gates.max(by: { bars[$0].end < bars[$1].end }), bars[gate].end <= bars[current].start + 0.05 else {
                break
            }
            // The job's first attempt is where its wait ended.
            path.append(gate)
            current = bars.indices.first { bars[$0].number == bars[gate].number && bars[$0].attempt == 1 } ?? gate
            if current != gate { path.append(current) }
        }
        return path
    }

    /// The rows' labels, and each bar's row (from 1): a row per slot; in a run over hosts, a row
    /// per host and slot (`build1 · 2`), hosts in the order they first ran a job.
    private static func rows(_ bars: [Bar]) -> (labels: [String], row: (Bar) -> Int) {
        guard bars.contains(where: { $0.host != nil }) else {
            let count = max(1, bars.map(\.slot).max() ?? 1)
            return ((1...count).map { "slot \($0)" }, { $0.slot })
        }
        struct Row: Hashable {
            package let host: String
            package let slot: Int
        }
        let row = { (bar: Bar) in Row(host: bar.host ?? ":", slot: bar.slot) }
        var firstStart: [String: Double] = [:]
        for bar in bars { firstStart[bar.host ?? ":"] = min(firstStart[bar.host ?? ":"] ?? .infinity, bar.start) }
        let ordered = Set(bars.map(row)).sorted {
            (firstStart[$0.host]!, $0.host, $0.slot) < (firstStart[$1.host]!, $1.host, $1.slot)
        }
        let index = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1, $0 + 1) })
        return (ordered.map { "\(SafeText.sanitize($0.host)) · \($0.slot)" }, { index[row($0)]! })
    }

    package static func svg(bars: [Bar], skipped: [(number: Int, label: String, reason: String)], caption: String) -> String {
        let origin = bars.map(\.start).min() ?? 0
        let span = max(0.001, (bars.map(\.end).max() ?? origin) - origin)
        let (rowLabels, rowOf) = rows(bars)
        let rows = rowLabels.count
        // Wide enough for the longest row label (about 7 px a character).
        let left = max(Self.left, 16 + 7 * Double(rowLabels.map(\.count).max() ?? 0))
        let scale = plotWidth / span
        let plotBottom = top + Double(rows) * rowHeight
        let height = plotBottom + 70 + Double(skipped.count) * 16
        let width = left + plotWidth + 24
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(format(width))" height="\(format(height))" \
            viewBox="0 0 \(format(width)) \(format(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(format(left))" y="20" font-size="14" font-weight="bold">futurerun</text>
            <text x="\(format(left))" y="38" class="caption">\(text(caption))</text>

            """
        for row in 1...rows {
            let y = top + Double(row - 1) * rowHeight
            svg +=
                "<rect x=\"\(format(left))\" y=\"\(format(y))\" width=\"\(format(plotWidth))\" height=\"\(format(rowHeight))\" "
            svg += "fill=\"\(row % 2 == 0 ? "#f4f5f7" : "#fbfbfc")\"/>\n"
            svg +=
                "<text x=\"\(format(left - 8))\" y=\"\(format(y + 17))\" text-anchor=\"end\" fill=\"#555\">\(text(rowLabels[row - 1]))</text>\n"
        }
        for tick in ticks(span: span) {
            let x = left + tick * scale
            svg +=
                "<line x1=\"\(format(x))\" y1=\"\(format(top))\" x2=\"\(format(x))\" y2=\"\(format(plotBottom + 4))\" stroke=\"#c8ccd2\"/>\n"
            svg += "<text x=\"\(format(x))\" y=\"\(format(plotBottom + 18))\" text-anchor=\"middle\" fill=\"#555\">"
            svg += text(DurationFormat.format(.milliseconds(Int64((tick * 1000).rounded())))) + "</text>\n"
        }
        for bar in bars {
            let x = left + (bar.start - origin) * scale
            let y = top + Double(rowOf(bar) - 1) * rowHeight + 3
            // A short job stays visible, and findable: its label is in the tooltip, which its bar shows.
            let barWidth = max(3, bar.wall * scale)
            svg += "<g class=\"job\" data-job=\"\(bar.number)\" data-attempt=\"\(bar.attempt)\">"
            svg +=
                "<rect x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(barWidth))\" height=\"\(format(rowHeight - 6))\" rx=\"3\" "
            svg += "fill=\"\(bar.outcome.color)\""
            if bar.critical { svg += " stroke=\"#1d3557\" stroke-width=\"3\"" }
            svg += "><title>" + text(tooltip(bar)) + "</title></rect>"
            let label = bar.attempts > 1 ? "\(bar.label) (\(bar.attempt))" : bar.label
            if Double(label.count) * 7 + 8 < barWidth {
                svg +=
                    "<text x=\"\(format(x + 4))\" y=\"\(format(y + 14))\" fill=\"#ffffff\" pointer-events=\"none\">\(text(label))</text>"
            }
            svg += "</g>\n"
        }
        var x = left
        let legendY = plotBottom + 40
        for outcome in Outcome.allCases {
            svg += "<rect x=\"\(format(x))\" y=\"\(format(legendY - 10))\" width=\"12\" height=\"12\" fill=\"\(outcome.color)\"/>"
            svg += "<text x=\"\(format(x + 16))\" y=\"\(format(legendY))\">\(outcome.rawValue)</text>\n"
            x += 90
        }
        if bars.contains(where: \.critical) {
            svg +=
                "<rect x=\"\(format(x))\" y=\"\(format(legendY - 10))\" width=\"12\" height=\"12\" fill=\"#ffffff\" stroke=\"#1d3557\" "
            svg += "stroke-width=\"3\"/><text x=\"\(format(x + 16))\" y=\"\(format(legendY))\">critical path</text>\n"
        }
        for (index, job) in skipped.enumerated() {
            let y = legendY + 22 + Double(index) * 16
            svg += "<text x=\"\(format(left))\" y=\"\(format(y))\" fill=\"#555\">skipped: [\(job.number)] "
            svg += text(job.label) + " — " + text(job.reason) + "</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// The tooltip: job number and label, the attempt, the command, how it ended (each word once),
    /// wall, CPU and peak memory.
    package static func tooltip(_ bar: Bar) -> String {
        var lines = ["job \(bar.number): \(bar.label)"]
        if bar.attempts > 1 { lines.append("attempt \(bar.attempt) of \(bar.attempts)") }
        lines.append("$ " + bar.command)
        lines.append(bar.detail)
        lines.append(
            "wall \(DurationFormat.format(.milliseconds(Int64(bar.wall * 1000)))), CPU \(DurationFormat.format(.milliseconds(Int64(bar.cpu * 1000)))), "
                + "peak memory \(bar.maxResidentBytes / 1024) KiB")
        return lines.joined(separator: "\n")
    }

    /// Axis ticks (seconds from the start): 1, 2 or 5 × a power of ten, four to ten of them.
    static func ticks(span: Double) -> [Double] {
        var step = 0.001
        while span / step > 10 {
            for factor in [2.0, 2.5, 2.0] where span / step > 10 { step *= factor }
        }
        return stride(from: 0, through: span + step * 0.001, by: step).map { $0 }
    }

    /// XML text: escaped, control characters dropped.
    package static func text(_ value: String) -> String { JUnitFormat.escape(value, quotes: true) }

    package static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
