import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// futurerun under low system limits: it runs fewer jobs at once, says so once, and completes all.
@Suite struct Limits {
    @Test func lowDescriptorLimitLowersTheWidthAndEveryJobCompletes() {
        let run = futurerun(
            ["-q", "-j", "500", "--each", "sleep 0.1; echo {}"] + (1...600).map(String.init),
            shellPrefix: "ulimit -n 256; ")
        #expect(run.status == 0)
        #expect(run.out.split(separator: "\n").count == 600)
        #expect(
            run.errLines == [
                "futurerun: running at most 48 jobs at once instead of -j 500: the descriptor limit (ulimit -n) is 256"
            ])
    }

    /// `-X` spreads the last arguments over the jobs that will run at once: the width as the
    /// descriptor limit lowers it (48 at `ulimit -n 256`), not the `-j` asked for.
    @Test func xargsSpreadsOverTheWidthThatWillRun() {
        let run = futurerun(
            ["-q", "-j", "500", "-X", "--each", "echo {}"] + (1...600).map(String.init), shellPrefix: "ulimit -n 256; ")
        #expect(run.status == 0)
        let jobs = run.out.split(separator: "\n")
        // 600 arguments over 48 slots: 13 a job (600/48 rounded up), in 47 jobs; -j 500 would have made 300.
        #expect(jobs.count == 47, "\(jobs.count) jobs")
        #expect(jobs.flatMap { $0.split(separator: " ") }.map { Int($0)! } == Array(1...600), "every argument once, in order")
    }

    @Test(.enabled(if: access("/usr/sbin/runuser", X_OK) == 0 && access("/usr/bin/prlimit", X_OK) == 0 && getuid() == 0))
    func lowProcessLimitLowersTheWidthAndEveryJobCompletes() {
        // Root ignores RLIMIT_NPROC: run as nobody.
        let run = futurerun(
            ["-j", "100", "--each", "sleep 0.1; echo {}"] + (1...60).map(String.init),
            shellPrefix: "exec runuser -u nobody -- prlimit --nproc=40 -- ", exec: false)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.split(separator: "\n").count == 60)
        #expect(run.errLines.filter { $0.hasPrefix("futurerun:") }.count == 1)
        #expect(run.err.contains("the process limit (ulimit -u) is 40"))
    }

    @Test func hugeInputLineFailsAsItsOwnJobWithoutHoldingItInMemory() {
        // A 300 MB line: far past what one command may hold; the others still run.
        let run = futurerun(
            ["-q"],
            shellPrefix: "{ echo 'echo before'; head -c 300000000 /dev/zero | tr '\\\\0' x; echo; echo 'echo after'; } | ",
            exec: false)
        #expect(run.out == "before\nafter\n")
        #expect(run.status == 1)
    }

    @Test func nulBytesInAJobLineWithoutDashZeroFailThatJobClearly() {
        let run = futurerun([], shellPrefix: "printf 'echo ok\\nec\\0ho bad\\n' | ", exec: false)
        #expect(run.out == "ok\n")
        #expect(run.err.contains("input line holds a NUL byte: use -0 for NUL-separated input"))
        #expect(run.status == 1)
    }

    @Test func templateExpandingPastTheArgumentLimitFailsThatJobClearly() {
        // A 100 KB argument used three times: one 300 KB shell command, past what Linux takes.
        let long = String(repeating: "y", count: 100_000)
        let run = futurerun(["--each", "echo {}{}{} >/dev/null; echo {} | cut -c1-5"], stdin: "short\n" + long + "\n")
        #expect(run.out == "short\n")
        #expect(
            run.err.contains(
                "the command line built for this job is 400035 bytes, longer than the 131071 bytes one command may have"))
        #expect(run.status == 1)
    }

    @Test func aJobsSpillFileIsFreedOnceTheJobIsPrinted() {
        // Job 2 outputs 2 MB while job 1 runs: held in a spill file until its turn. Job 3 starts
        // after job 1 and waits for futurerun to hold no spill file; disk use must not grow with
        // the run.
        let scratch = Scratch()
        let jobs = [
            "sleep 0.3",
            "head -c 2000000 /dev/zero",
            "for i in $(seq 30); do n=$(ls -l /proc/$PPID/fd | grep -c \"$TMPDIR\"); [ $n = 0 ] && break; sleep 0.1; done; echo spill files open: $n",
        ]
        let run = futurerun(["-q", "-j2"], stdin: jobs.joined(separator: "\n") + "\n", environment: [("TMPDIR", scratch.path)])
        #expect(run.status == 0)
        #expect(run.stdout.count == 2_000_000 + "spill files open: 0\n".utf8.count)
        #expect(run.out.hasSuffix("spill files open: 0\n"))
    }

    @Test func emptyInputRunsNothingAndSucceeds() {
        let run = futurerun(["-q"], stdin: "")
        #expect(run.status == 0)
        #expect(run.out == "")
    }
}
