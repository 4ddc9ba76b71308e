import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Every report reader fed random bytes, and valid reports cut and spliced at random: none may
/// crash, and what it returns stays bounded by what it was given.
@Suite struct DecoderFuzz {
    static let samples = [
        "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n1\t:\t1796516924.550\t     0.001\t0\t4\t0\t0\techo one\n2\t:\t1.0\t2.5\t0\t0\t-1\t15\tsleep 5\n",
        "{\"number\":1,\"name\":\"a\",\"command\":\"echo a\",\"wall\":0.25}\n{\"name\": \"b\\u00e9\\n\", \"wall\": 1e2}\n",
        "<?xml version=\"1.0\"?>\n<testsuites>\n<testsuite name=\"futurerun\">\n<testcase name=\"a &amp; b\" classname=\"futurerun\" time=\"0.750\">\n</testcase>\n</testsuite>\n</testsuites>\n",
    ]

    @Test func randomAndTruncatedBytesNeverCrashAReader() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("\t\n\r{}[]\":,<>=&;.-+eE0123456789 abcdefnaiSeq/\\u\u{0}\u{FF}é".unicodeScalars)
        func randomScalar() -> Unicode.Scalar { alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        for round in 0..<3000 {
            var scalars: [Unicode.Scalar] = []
            if round % 3 == 0 {
                for _ in 0..<Int(generator.next() % 200) { scalars.append(randomScalar()) }
            } else {
                let sample = Array(Self.samples[Int(generator.next() % UInt64(Self.samples.count))].unicodeScalars)
                scalars = Array(sample[..<Int(generator.next() % UInt64(sample.count + 1))])
                for _ in 0..<Int(generator.next() % 4) {
                    scalars.insert(randomScalar(), at: Int(generator.next() % UInt64(scalars.count + 1)))
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            let lines = text.count + 1
            let joblog = JobLogFormat.decode(text)
            #expect(joblog.records.count + joblog.skipped <= lines)
            let json = JSONLinesFormat.decode(text)
            #expect(json.records.count + json.skipped <= lines)
            #expect(json.records.allSatisfy { $0.wall.isFinite && $0.wall >= 0 })
            let junit = JUnitFormat.decode(text)
            #expect(junit.records.count + junit.skipped <= lines)
            #expect(junit.records.allSatisfy { $0.seconds.isFinite && $0.seconds >= 0 })
            if let timings = ShardTimings.parse(text) { #expect(timings.mean.isFinite) }
            _ = ResumeLog(mode: .done, joblog: text).skip(1)
        }
    }
}

@Suite struct ReportBudgets {
    @Test func theStepSummaryStaysUnderGitHubsLimitAndCopiesNoControlBytes() {
        let label = String(repeating: "x", count: 40)
        let rows = (1...100_000).map { (number: $0, label: label, status: "❌ exit 1", time: "1ms") }
        let tail = [String(repeating: "\u{1B}[31mred\u{07}", count: 500)]
        let failed = (1...2000).map { _ in (label: label, lines: tail) }
        let text = StepSummary.markdown(rows: rows, failed: failed, tally: Tally())
        #expect(text.utf8.count < 1_048_576)
        #expect(text.contains("more jobs"))
        #expect(text.contains("more failed jobs are left out"))
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func aTimelineTooltipKeepsABudgetOfItsCommand() {
        let long = Array(String(repeating: "é", count: 30_000).utf8)
        let cut = Timeline.shortened(long, to: Timeline.commandBudget)
        #expect(cut.utf8.count <= Timeline.commandBudget + 3)
        #expect(cut.hasSuffix("…"))
        #expect(!cut.unicodeScalars.contains("\u{FFFD}"))
    }
}

@Suite struct ArgumentTexts {
    @Test func anyBytesComeBackFromTheirTextAndShowAsReplacementCharacters() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int(generator.next() % 24)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }.filter {
                $0 != 0
            }
            let text = ArgumentText.decode(bytes)
            #expect(ArgumentText.bytes(text) == bytes)
            #expect(!ArgumentText.display(text).unicodeScalars.contains { $0.value >= 0x10_FF80 })
        }
        #expect(ArgumentText.decode(Array("plain é".utf8)) == "plain é")
        #expect(ArgumentText.display(ArgumentText.decode([0x61, 0xFF, 0x62])) == "a\u{FFFD}b")
        #expect(ArgumentText.decode([0x61, 0xFF]).systemPath == [0x61, CChar(bitPattern: 0xFF), 0])
    }
}
