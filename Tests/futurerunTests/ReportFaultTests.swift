import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Report files under faults: two reports on one file, a full disk, a crash while writing.
@Suite struct ReportFaults {
    @Test(arguments: [
        ["--json", "x", "--joblog", "x"], ["--junit", "x", "--timeline", "./x"], ["--joblog", "+x", "--json", "x"],
    ])
    func twoReportsOnOneFileAreRefused(arguments: [String]) {
        let scratch = Scratch()
        let run = futurerun(arguments + ["echo ran"], directory: scratch.path)
        #expect(run.status == 255)
        #expect(run.errLines.count == 1)
        #expect(run.err.contains("would both write"), "\(run.err)")
        #expect(run.out == "")
        #expect(scratch.entries().isEmpty, "nothing written: \(scratch.entries())")
    }

    @Test func twoPathsToOneExistingFileAreOneFile() {
        let scratch = Scratch()
        scratch.write("real", "")
        symlink(scratch.file("real"), scratch.file("link"))
        let run = futurerun(["--json", scratch.file("real"), "--junit", scratch.file("link"), "true"])
        #expect(run.status == 255)
        #expect(run.err.contains("would both write"), "\(run.err)")
    }

    /// A full disk, as a file-size limit makes it (writes past it fail with EFBIG).
    @Test(.disabled(if: isThreadSanitized, "the thread sanitizer's own files cannot live under the file-size limit"))
    func junitStaysValidXMLWhenADiskFillsMidRun() throws {
        #expect(access("/usr/bin/python3", X_OK) == 0, "python3 reads the XML back (.ci/run installs it)")
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "--junit", scratch.file("junit.xml"), "--each", "printf '%0700d' {}"] + (1...10).map(String.init),
            shellPrefix: "trap '' XFSZ; ulimit -f 4; ")
        #expect(run.err.contains("cannot write '\(scratch.file("junit.xml"))'"), "\(run.err)")
        #expect(run.status != 0)
        let check = Command.shell(
            "python3 -c 'import sys, xml.etree.ElementTree as E; print(len(list(E.parse(sys.argv[1]).getroot().iter(\"testcase\"))))' "
                + quoted(scratch.file("junit.xml"))
        ).run().value
        let cases = Int(String(decoding: check.stdout.bytes(), as: UTF8.self).filter { !$0.isNewline }) ?? -1
        #expect(check.status == .exited(0), "\(String(decoding: check.stderr.bytes(), as: UTF8.self))")
        #expect((1...9).contains(cases), "complete testcases only: \(cases)")
    }

    @Test func aTimelineThroughASymlinkReplacesTheTargetAndKeepsTheLink() throws {
        let scratch = Scratch()
        scratch.write("real.svg", "old")
        symlink("real.svg", scratch.file("link.svg"))
        let run = futurerun(["-q", "--timeline", "link.svg", "echo a"], directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        var info = stat()
        #expect(lstat(scratch.file("link.svg"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        #expect(try #require(scratch.read("real.svg")).contains("<svg"))
        #expect(scratch.entries().sorted() == ["link.svg", "real.svg"], "\(scratch.entries())")
    }

    @Test func aTimelineToAFIFOIsWrittenThroughToItsReader() throws {
        let scratch = Scratch()
        #expect(mkfifo(scratch.file("pipe"), 0o600) == 0)
        let run = futurerun(
            ["-q", "--timeline", "pipe", "echo a"], shellPrefix: "cat pipe > picture & ",
            shellSuffix: "; status=$?; wait; exit $status",
            directory: scratch.path, exec: false)
        #expect(run.status == 0, "\(run.err)")
        var info = stat()
        #expect(stat(scratch.file("pipe"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
        #expect(try #require(scratch.read("picture")).contains("</svg>"), "the reader got the whole picture")
    }

    @Test func aTimelineToItsOwnStdoutFollowsTheJobsOutput() throws {
        let scratch = Scratch()
        let run = futurerun(["-q", "--timeline", "/dev/stdout", "echo job"], shellSuffix: " > out", directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        let out = try #require(scratch.read("out"))
        #expect(out.hasPrefix("job\n") && out.contains("</svg>"), "\(out.prefix(80))")
    }

    @Test(.enabled(if: canMountTinyDisk, "mounting a tmpfs needs root"))
    func aTimelineOnAFullDiskFailsTheRunAndKeepsTheEarlierPicture() throws {
        let disk = try #require(TinyDisk())
        let picture = disk.path + "/run.svg"
        #expect(futurerun(["-q", "--timeline", picture, "echo a"]).status == 0)
        let earlier = try #require(readText(picture))
        _ = Command.shell("head -c 2M /dev/zero > \(quoted(disk.path))/filler").run().value
        let run = futurerun(["-q", "--timeline", picture, "echo a"])
        #expect(run.status == 255)
        #expect(run.err.contains("cannot write '\(picture)'"), "\(run.err)")
        #expect(readText(picture) == earlier)
    }

    @Test func anEarlierTimelineSurvivesARunKilledBeforeItsEnd() throws {
        let scratch = Scratch()
        let picture = scratch.file("run.svg")
        #expect(futurerun(["-q", "--timeline", picture, "echo a"]).status == 0)
        let earlier = try #require(scratch.read("run.svg"))
        #expect(earlier.hasPrefix("<svg") || earlier.hasPrefix("<?xml"))
        let killed = futurerun(["-q", "--timeline", picture, "sleep 5"], shellPrefix: "( sleep 0.5; kill -KILL $$ ) & ")
        #expect(killed.status == 137)
        #expect(scratch.read("run.svg") == earlier, "the last picture is still there, whole")
        #expect(scratch.entries().sorted() == ["run.svg"], "no temporary file left: \(scratch.entries())")
    }

    @Test func aTimelineOfLongCommandsStaysSmall() {
        let scratch = Scratch()
        let long = String(repeating: "x", count: 60_000)
        let run = futurerun(["-q", "--timeline", scratch.file("t.svg"), "--each", "true \(long) {}"] + (1...20).map(String.init))
        #expect(run.status == 0, "\(run.err)")
        let size = (scratch.read("t.svg") ?? "").utf8.count
        #expect(size > 0 && size < 200_000, "each tooltip keeps 1,000 bytes of its command: \(size) bytes")
    }

    @Test func theStepSummaryOfManyLoudFailuresStaysUnderOneMebibyte() {
        let scratch = Scratch()
        let summary = scratch.file("summary.md")
        // 300 failed jobs, each ending with 20 lines of 400 bytes: 2.4 MB of last lines.
        let run = futurerun(
            ["-q", "--each", "for i in $(seq 20); do printf '%0400d\\n' {}; done; exit 1"] + (1...300).map(String.init),
            environment: [("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", summary)])
        #expect(run.status == 101)
        let size = (scratch.read("summary.md") ?? "").utf8.count
        #expect(size > 100_000 && size < 1_048_576, "\(size) bytes")
    }
}
