import FutureCore
import FutureProcess
import TestSupport
import Testing

@Suite struct Forms {
    @Test func segmentsRunInParallelAndPrintInInputOrder() throws {
        // Each job records when it starts and ends: they overlap, yet print in input order.
        let scratch = Scratch()
        let stamp = { (name: String) in "date +%s%N > \(quoted(scratch.file(name)))" }
        let run = futurerun([
            "--names", "one,two,three", "\(stamp("s1")); sleep 0.6; echo 1; \(stamp("e1"))", ":::",
            "\(stamp("s2")); sleep 0.3; echo 2; \(stamp("e2"))", ":::", "\(stamp("s3")); echo 3",
        ])
        #expect(run.status == 0)
        #expect(run.out == "1\n2\n3\n")
        let time = { (name: String) throws -> Int in try #require(Int(scratch.read(name)?.filter(\.isNumber) ?? "")) }
        #expect(try time("s2") < time("e1") && time("s3") < time("e1"), "the later jobs started while the first ran")
        #expect(try time("e2") < time("e1"), "the second ended first and still printed second")
        let lines = run.errLines
        #expect(lines.count >= 4)
        #expect(lines[0].hasPrefix("ok   [1/3] one  6"))
        #expect(lines[1].hasPrefix("ok   [2/3] two  3"))
        #expect(lines[2].hasPrefix("ok   [3/3] three  "))
        #expect(lines[3].hasPrefix("3 jobs in "))
    }

    @Test func wordsOfASegmentAreJoinedWithSpaces() {
        let run = futurerun(["-q", "echo", "a", "b", ":::", "printf", "'%s-%s\\n'", "x", "y"])
        #expect(run.out == "a b\nx-y\n")
    }

    @Test func jobsFromStdinSkipBlankAndCommentLines() {
        let run = futurerun(["-q", "-j2"], stdin: "echo one\n\n   \n# a comment\necho two\necho three")
        #expect(run.status == 0)
        #expect(run.out == "one\ntwo\nthree\n")
    }

    @Test func jobsFromAFileAndFromDash() {
        let scratch = Scratch()
        scratch.write("jobs.txt", "echo from-file\n#skip\necho second\n")
        #expect(futurerun(["-q", "-a", scratch.file("jobs.txt")]).out == "from-file\nsecond\n")
        #expect(futurerun(["-q", "-a", "-"], stdin: "echo dash\n").out == "dash\n")
    }

    @Test func eachRunsTheTemplatePerArgument() {
        let run = futurerun(["-q", "--each", "echo [{}]", "a", "b c", "d"])
        #expect(run.out == "[a]\n[b c]\n[d]\n")
    }

    @Test func eachOverSeveralListsRunsEveryCombinationOrPairsThemWithLink() {
        #expect(futurerun(["-q", "--each", "echo {1}{2}", ":::", "a", "b", ":::", "1", "2"]).out == "a1\na2\nb1\nb2\n")
        #expect(futurerun(["-q", "--link", "--each", "echo {1}{2}", ":::", "a", "b", ":::", "1", "2"]).out == "a1\nb2\n")
    }

    @Test func eachTakesArgumentsFromStdinLinesOrNulRecords() {
        #expect(futurerun(["-q", "--each", "echo [{}]"], stdin: "x\ny z\n").out == "[x]\n[y z]\n")
        let run = futurerun(["-q", "-0", "--each", "echo [{}]"], shellPrefix: "printf 'p\\nq\\0r\\0' | ")
        #expect(run.out == "[p\nq]\n[r]\n")
    }

    @Test func replacementStringsHaveGnuParallelsMeanings() {
        let run = futurerun(["-q", "-j1", "--each", "echo {} {.} {/} {//} {/.} {#} {%}", "dir/sub/file.tar.gz", "plain"])
        #expect(
            run.out == "dir/sub/file.tar.gz dir/sub/file.tar file.tar.gz dir/sub file.tar 1 1\n"
                + "plain plain plain . plain 2 1\n")
    }

    @Test func templateWithoutReplacementStringGetsTheArgumentAppended() {
        #expect(futurerun(["-q", "--each", "echo got", "a b", "c"]).out == "got a b\ngot c\n")
    }

    @Test func jobsSeeTheirNumberSlotAndName() {
        let run = futurerun([
            "-q", "-j1", "--names", "first,second", "echo $FUTURERUN_JOB $FUTURERUN_SLOT $FUTURERUN_NAME", ":::",
            "echo $FUTURERUN_JOB $FUTURERUN_NAME",
        ])
        #expect(run.out == "1 1 first\n2 second\n")
    }

    @Test func dryRunPrintsCommandLinesAndRunsNothing() {
        let scratch = Scratch()
        let run = futurerun(["--dry-run", "--each", "touch {}", scratch.file("a"), scratch.file("b c")])
        #expect(run.status == 0)
        #expect(run.out == "touch \(scratch.file("a"))\ntouch '\(scratch.file("b c"))'\n")
        #expect(!scratch.exists("a"))
    }

    @Test func workdirAndShellOptions() {
        let scratch = Scratch()
        #expect(futurerun(["-q", "-C", scratch.path, "pwd"]).out == scratch.path + "\n")
        #expect(futurerun(["-q", "--shell", "/bin/bash", "echo $BASH_VERSION | cut -c1"]).out.count == 2)
    }

    @Test func thousandJobsFromStdinKeepTheirOrder() {
        let lines = (1...1000).map { "echo \($0)" }.joined(separator: "\n")
        let run = futurerun(["-q", "-j8"], stdin: lines)
        #expect(run.out == (1...1000).map { "\($0)\n" }.joined())
    }
}
