import Glibc
import TestSupport
import Testing

@Suite struct Control {
    @Test func exitStatusCountsFailedJobsUpTo101() {
        #expect(futurerun(["-q", "true", ":::", "true"]).status == 0)
        #expect(futurerun(["-q", "exit 1", ":::", "exit 7", ":::", "true"]).status == 2)
        let many = futurerun(["-q", "-j0", "--each", "exit 1"] + (1...102).map(String.init))
        #expect(many.status == 101)
    }

    @Test func jobsOptionBoundsConcurrency() {
        let scratch = Scratch()
        // Each job records how many jobs are running when it starts.
        let job =
            "mkdir \(quoted(scratch.path))/$FUTURERUN_JOB; ls \(quoted(scratch.path)) | wc -l; sleep 0.2; rmdir \(quoted(scratch.path))/$FUTURERUN_JOB"
        let run = futurerun(["-q", "-j2", "--each", job] + (1...6).map(String.init))
        let counts = run.out.split(separator: "\n").compactMap { Int($0.filter(\.isNumber)) }
        #expect(counts.count == 6)
        #expect(counts.allSatisfy { $0 <= 2 })
        #expect(counts.contains(2))
    }

    @Test func percentAndZeroWidths() {
        #expect(futurerun(["-q", "-j50%", "true"]).status == 0)
        // -j0: no limit, so all 20 run at once: the last start comes before the first end.
        let run = futurerun(["-q", "-j0", "--each", "date +%s%N; sleep 0.5; date +%s%N >&2; : {}"] + (1...20).map(String.init))
        #expect(run.status == 0)
        let starts = run.out.split(separator: "\n").compactMap { Int($0) }
        let ends = run.err.split(separator: "\n").compactMap { Int($0) }
        #expect(starts.count == 20 && ends.count == 20)
        #expect(starts.max() ?? 0 < ends.min() ?? 0, "all 20 jobs overlapped")
    }

    @Test func timeoutStopsTheJobAndCountsAsFailure() {
        let run = futurerun(["--timeout", "200ms", "sleep 10", ":::", "echo fine"])
        #expect(run.status == 1)
        #expect(run.wall < .seconds(3))
        #expect(run.errLines[0].contains("timeout"))
        #expect(run.out == "fine\n")
    }

    @Test func graceBoundsTheWaitForAJobIgnoringTerm() {
        let run = futurerun(["--timeout", "100ms", "--grace", "300ms", "trap '' TERM; sleep 10"])
        #expect(run.status == 1)
        #expect(run.wall >= .milliseconds(350))
        #expect(run.wall < .seconds(3))
    }

    @Test func retriesRerunAFailedJob() {
        let scratch = Scratch()
        let counter = quoted(scratch.file("count"))
        let job = "echo x >> \(counter); [ $(wc -l < \(counter)) -ge 3 ]"
        let run = futurerun(["--retries", "3", job])
        #expect(run.status == 0)
        #expect(scratch.read("count") == "x\nx\nx\n")
        #expect(run.errLines[0].contains("after 3 attempts"))
        // As GNU parallel: --retries N is N attempts in all.
        scratch.write("count", "")
        #expect(futurerun(["-q", "--retries", "2", job]).status == 1)
        #expect(scratch.read("count") == "x\nx\n")
    }

    @Test func failFastStopsEverythingAtTheFirstFailure() {
        let run = futurerun(["-j2", "--fail-fast", "sleep 0.1; exit 3", ":::", "sleep 20", ":::", "echo never"])
        #expect(run.status == 3, "the failing job's status, as GNU parallel's --halt now,fail=1 exits")
        #expect(run.wall < .seconds(4))
        #expect(!run.out.contains("never"))
    }

    @Test func haltSoonLetsRunningJobsFinish() {
        let run = futurerun([
            "-j2", "--halt", "soon,fail=1", "exit 1", ":::", "sleep 0.5; echo finished", ":::", "sleep 0.1; echo never",
        ])
        #expect(run.out == "finished\n")
        #expect(run.status == 1)
    }

    @Test func haltOnFirstSuccessRacesTheJobs() {
        let run = futurerun(["-j3", "--halt", "now,success=1", "sleep 20", ":::", "sleep 0.1; echo winner", ":::", "sleep 20"])
        #expect(run.status == 0)
        #expect(run.out == "winner\n")
        #expect(run.wall < .seconds(4))
    }

    @Test func delaySpacesTheStarts() {
        // Each job prints when it started: consecutive starts are at least the delay apart.
        let run = futurerun(["-q", "-j3", "--delay", "200ms", "date +%s%N", ":::", "date +%s%N", ":::", "date +%s%N"])
        let starts = run.out.split(separator: "\n").compactMap { Int($0) }
        #expect(starts.count == 3)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 >= 190_000_000 }, "\(starts)")
    }

    @Test func helpAndVersion() {
        let help = futurerun(["--help"])
        #expect(help.status == 0)
        for option in [
            "--jobs", "--each", "--link", "--null", "--shell", "--workdir", "--timeout", "--grace", "--retries",
            "--fail-fast", "--halt", "--delay", "--dry-run", "--quiet", "--verbose", "--tag", "--live",
            "--names", "--quiet-success", "--color", "--progress", "--ci", "--joblog", "--json", "--junit",
            "--results", "--version",
        ] {
            #expect(help.out.contains(option), "help lacks \(option)")
        }
        #expect(futurerun(["--version"]).out.hasPrefix("futurerun "))
    }
}

@Suite struct UsageErrors {
    @Test(arguments: [
        (["--bogus", "true"], "unknown option '--bogus'"),
        (["-j"], "option '-j' needs a value"),
        (["--timeout", "soon", "true"], "invalid value 'soon' for '--timeout'"),
        (["-j", "many", "true"], "invalid value 'many' for '-j'"),
        (["--each"], "'--each' needs a template"),
        (["-a", "/nonexistent/jobs"], "cannot read '/nonexistent/jobs'"),
        (["a", ":::", ":::", "b"], "command 2 between ':::' is empty"),
        (["--halt", "sometimes", "true"], "invalid value 'sometimes' for '--halt'"),
        (["--each", "echo {3}", ":::", "a", ":::", "b"], "at most {2}"),
        (["-C", "/nonexistent/dir", "true"], "invalid value '/nonexistent/dir' for '--workdir'"),
    ])
    func badInputGetsOneClearLineAndStatus255(arguments: [String], message: String) {
        let run = futurerun(arguments)
        #expect(run.status == 255)
        #expect(run.out == "")
        #expect(run.errLines.count == 1)
        #expect(run.err.hasPrefix("futurerun: "))
        #expect(run.err.contains(message), "\(run.err)")
    }

    @Test func nothingRunsWhenTheCommandLineIsBad() {
        let scratch = Scratch()
        let run = futurerun(["--timeout", "x", "touch \(quoted(scratch.file("ran")))"])
        #expect(run.status == 255)
        #expect(!scratch.exists("ran"))
    }
}
