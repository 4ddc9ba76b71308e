import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

@Suite struct Reports {
    private let jobs = ["echo a", ":::", "exit 3", ":::", "kill -9 $$", ":::", "printf 'xyz'"]

    @Test func joblogHasGnuParallelsColumnsAndValues() throws {
        let scratch = Scratch()
        let run = futurerun(["-q", "--joblog", scratch.file("log")] + jobs)
        #expect(run.status == 2)
        let lines = (scratch.read("log") ?? "").split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(lines.first == ["Seq", "Host", "Starttime", "JobRuntime", "Send", "Receive", "Exitval", "Signal", "Command"])
        let rows = lines.dropFirst().map { [$0[0], $0[1], $0[4], $0[5], $0[6], $0[7], $0[8]] }
        #expect(
            rows == [
                ["1", ":", "0", "2", "0", "0", "echo a"], ["2", ":", "0", "0", "3", "0", "exit 3"],
                ["3", ":", "0", "0", "0", "9", "kill -9 $$"], ["4", ":", "0", "3", "0", "0", "printf 'xyz'"],
            ])
        for line in lines.dropFirst() {
            #expect(line[2].split(separator: ".").map(\.count).last == 3)
            #expect(line[3].count == 10 && line[3].hasPrefix(" "))
        }
        // GNU parallel's joblog for the same jobs has the same values (.ci/run installs it).
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is not installed")
        _ =
            Command.shell(
                "parallel -k --joblog \(quoted(scratch.file("gnu"))) ::: 'echo a' 'exit 3' 'kill -9 $$' \"printf 'xyz'\" >/dev/null 2>&1"
            ).run().value
        let gnu = (scratch.read("gnu") ?? "").split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(gnu.dropFirst().map { [$0[0], $0[1], $0[4], $0[5], $0[6], $0[7], $0[8]] } == rows)
        #expect(gnu.first == lines.first)
    }

    @Test func joblogPlusAppendsWithoutASecondHeader() {
        let scratch = Scratch()
        _ = futurerun(["-q", "--joblog", scratch.file("log"), "true"])
        _ = futurerun(["-q", "--joblog", "+" + scratch.file("log"), "true"])
        let lines = (scratch.read("log") ?? "").split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.filter { $0.hasPrefix("Seq") }.count == 1)
    }

    @Test func jsonLinesHaveTheContractsFields() {
        let scratch = Scratch()
        _ = futurerun(["-q", "--json", scratch.file("j"), "--timeout", "300ms"] + jobs + [":::", "sleep 5"])
        let lines = (scratch.read("j") ?? "").split(separator: "\n")
        #expect(lines.count == 5)
        for field in [
            "number", "name", "command", "exit", "signal", "timed_out", "attempts", "start", "wall", "user", "sys", "max_rss",
            "stdout_bytes", "stderr_bytes",
        ] {
            #expect(lines.allSatisfy { $0.contains("\"\(field)\":") }, "missing \(field)")
        }
        #expect(
            lines[0].hasPrefix(
                "{\"number\":1,\"name\":\"echo a\",\"command\":\"echo a\",\"status\":\"ok\",\"exit\":0,\"signal\":null"))
        #expect(lines[2].contains("\"signal\":9"))
        #expect(lines[4].contains("\"timed_out\":true"))
        // Every line parses as JSON (python is on the machines this runs on).
        let check = Command.shell(
            "python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' \(quoted(scratch.file("j")))"
        ).run().value
        #expect(check.status == .exited(0) || check.status == .exited(127))
    }

    @Test func jsonToStdoutIsRefused() {
        let scratch = Scratch()
        let run = futurerun(["--json", "-", "touch \(quoted(scratch.file("ran")))"])
        #expect(run.status == 255)
        #expect(run.errLines == ["futurerun: invalid value '-' for '--json': expected a file: stdout carries the jobs' output"])
        #expect(!scratch.exists("ran"))
    }

    @Test func junitIsValidXmlWithCountsFailuresAndEscapedOutput() {
        let scratch = Scratch()
        _ = futurerun(["-q", "--junit", scratch.file("r.xml"), "echo '<a&b>'", ":::", "echo 'why: \u{01}bad' >&2; exit 2"])
        let xml = scratch.read("r.xml") ?? ""
        #expect(xml.contains("<testsuite name=\"futurerun\" tests=\"2\" failures=\"1\""))
        #expect(xml.contains("<system-out>&lt;a&amp;b&gt;</system-out>"))
        #expect(xml.contains("<failure message=\"exit 2\" type=\"failure\">why: bad</failure>"))
        let check = Command.shell(
            "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' \(quoted(scratch.file("r.xml")))"
        ).run().value
        #expect(check.status == .exited(0) || check.status == .exited(127))
    }

    @Test func junitSaysHowMuchOfALongOutputItLeftOut() {
        let scratch = Scratch()
        _ = futurerun(["-q", "--junit", scratch.file("r.xml"), "seq 250", ":::", "seq 3"])
        let xml = scratch.read("r.xml") ?? ""
        #expect(xml.contains("<system-out>[… 50 earlier lines not kept …]\n51\n52\n"))
        #expect(xml.contains("\n250</system-out>"))
        #expect(xml.contains("<system-out>1\n2\n3</system-out>"), "a whole output gets no marker")
    }

    @Test func resultsDirectoryHoldsAFolderPerJob() {
        let scratch = Scratch()
        let out = scratch.file("out")
        _ = futurerun(["-q", "--results", out, "echo one; echo e >&2", ":::", "printf two"])
        #expect(scratch.read("out/1/stdout") == "one\n")
        #expect(scratch.read("out/1/stderr") == "e\n")
        #expect(scratch.read("out/2/stdout") == "two")
        #expect(scratch.read("out/2/meta.json")?.hasPrefix("{\"number\":2,") == true)
    }

    @Test func resultsDirectoryRefusesSymbolicLinks() {
        let scratch = Scratch()
        let out = scratch.file("out")
        mkdir(out, 0o755)
        symlink(scratch.file("elsewhere"), out + "/1")
        let run = futurerun(["-q", "--results", out, "echo one"])
        #expect(run.status == 255)
        #expect(run.err.contains("symbolic links are refused"))
        #expect(!scratch.exists("elsewhere"))
        symlink(scratch.path, scratch.file("linked"))
        #expect(futurerun(["-q", "--results", scratch.file("linked"), "true"]).status == 255)
    }

    @Test func reportsKeepWhatCompletedWhenTheRunIsInterrupted() {
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "--joblog", scratch.file("log"), "--junit", scratch.file("r.xml"), "true", ":::", "sleep 30"],
            shellPrefix: "( sleep 0.5; kill -INT $$ ) & ")
        #expect(run.status == 130)
        // The job the interrupt stopped is left out, as GNU parallel leaves it out: --resume runs it.
        let log = (scratch.read("log") ?? "").split(separator: "\n")
        #expect(log.count == 2)
        #expect(log[1].hasSuffix("\ttrue"))
        #expect((scratch.read("r.xml") ?? "").hasSuffix("</testsuites>\n"))
    }
}

@Suite struct RunDetails {
    @Test func jobsSeeTheirWholeNameNotTheShortenedLabel() {
        let long = String(repeating: "n", count: 70) + " and more"
        let run = futurerun(["--each", "printf '%s' \"$FUTURERUN_NAME\" # {}", long])
        #expect(run.out == long)
        #expect(run.err.contains("ok   [1/1] " + String(repeating: "n", count: 47) + "…"))
    }

    @Test func resultsIntoTheFolderOfALongerRunLeaveNothingOfIt() {
        let scratch = Scratch()
        let folder = scratch.file("out")
        #expect(futurerun(["-q", "--results", folder, "--each", "echo {}", "a", "b", "c"]).status == 0)
        #expect(futurerun(["-q", "--results", folder, "echo x"]).status == 0)
        #expect(scratch.exists("out/1/stdout") && !scratch.exists("out/2") && !scratch.exists("out/3"))
        #expect(scratch.read("out/1/stdout") == "x\n")
    }

    @Test func resultsRefuseAFolderHoldingSomethingElseAndRunNothing() {
        let scratch = Scratch()
        let folder = scratch.file("out")
        #expect(futurerun(["-q", "--results", folder, "echo a"]).status == 0)
        scratch.write("out/notes.txt", "mine")
        let run = futurerun(["--results", folder, "touch \(quoted(scratch.file("ran")))"])
        #expect(run.status == 255)
        #expect(run.err.contains("it holds 'notes.txt', which futurerun did not write"))
        #expect(!scratch.exists("ran"))
        #expect(scratch.exists("out/1/stdout") && scratch.read("out/notes.txt") == "mine", "nothing was removed")
    }

    @Test func theSpeedUpIsGivenOnlyWhereItMeansSomething() {
        let one = futurerun(["true"])
        #expect(one.err.contains("1 job in ") && !one.err.contains("x parallel"), "\(one.err)")
        let two = futurerun(["sleep 0.2", ":::", "sleep 0.2"])
        #expect(two.err.contains("x parallel"), "\(two.err)")
    }
}
