import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `--memfree` in a real memory cgroup (jobs that hold real memory, futurerun inside the cgroup),
/// `--load` and `-j FILE`: admission from outside the run, one test at a time.
@Suite(.serialized) struct AdmissionRuns {
    /// A child of futurerun's own v1 memory cgroup with `limit` bytes, removed after `body`.
    private func inCgroup(limit: Int, _ body: (_ directory: String) throws -> Void) throws {
        let own = try #require(
            readText("/proc/self/cgroup")?.split(separator: "\n").first { $0.contains(":memory:") }?.split(separator: ":").last,
            "no v1 memory cgroup (this machine mounts one at /sys/fs/cgroup/memory)")
        let directory =
            "/sys/fs/cgroup/memory\(own == "/" ? "" : own)/futurerun-test-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try #require(mkdir(directory, 0o755) == 0, "cannot make a cgroup (as root): \(String(cString: strerror(errno)))")
        defer {
            // Its processes have ended with the run; a moment for the kernel to let go of them.
            for _ in 0..<100 where rmdir(directory) != 0 { usleep(20000) }
        }
        try #require(Command.shell("echo \(limit) > \(directory)/memory.limit_in_bytes").run().value.status == .exited(0))
        try body(directory)
    }

    private func oomKills(_ directory: String) -> Int {
        let text = readText(directory + "/memory.oom_control") ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("oom_kill ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
    }

    /// Eight jobs that each hold 400 MiB for a second, each stamping its start and end.
    private func run(_ options: [String], in directory: String, scratch: Scratch) -> Outcome {
        let job = """
            date +%s%N > start.{}; python3 -c 'import time; b = bytearray(400 << 20); time.sleep(1)'; \
            s=$?; date +%s%N > end.{}; exit $s
            """
        return futurerun(
            ["-q"] + options + ["--each", job, ":::"] + (1...8).map(String.init),
            shellPrefix: "echo $$ > \(directory)/cgroup.procs; ", directory: scratch.path)
    }

    @Test func memfreeRunsEveryJobWithoutAnOOMKillWhereJ8AloneGetsThem() throws {
        try #require(access("/usr/bin/python3", X_OK) == 0, "python3 holds the memory (.ci/run installs it)")
        try inCgroup(limit: 1 << 30) { directory in
            let scratch = Scratch()
            let admitted = run(
                ["-j8", "--memfree", "450M", "--json", "jobs.json", "--timeline", "t.svg"], in: directory, scratch: scratch)
            #expect(admitted.status == 0, "\(admitted.err)")
            // Every job once in the report: one stopped and run again (when two started at once and
            // did not fit beside half of 450M) is one record, which says `"requeued"`.
            let records = scratch.read("jobs.json")?.split(separator: "\n") ?? []
            #expect(records.count == 8 && records.allSatisfy { $0.contains("\"status\":\"ok\"") }, "\(records)")
            // Once stopped, starts leave room for it: a job is not stopped again and again (once as
            // a rule; twice allowed to a machine so busy that a job takes its memory late).
            let requeues = records.compactMap { record in
                record.firstRange(of: "\"requeued\":").map { Int(record[$0.upperBound...].prefix(while: \.isNumber)) ?? 0 }
            }
            #expect(requeues.allSatisfy { $0 <= 2 }, "\(requeues)")
            // Jobs that -j8 would have started waited for memory: their records and the timeline say so.
            #expect(records.contains { $0.contains("\"waited_for\":\"memory\"") }, "\(records)")
            let picture = scratch.read("t.svg") ?? ""
            #expect(picture.contains("waited") && picture.contains("for memory"))
            #expect(requeues.isEmpty || picture.contains("queued again"), "a stopped attempt is a bar of its own")
            #expect(oomKills(directory) == 0)
            let times = stamps(scratch, 1...8)
            #expect(times.allSatisfy { $0.start > 0 && $0.end > $0.start })
            let overlap = mostAtOnce(times)
            #expect(overlap <= 2, "at most two hold their 400 MiB at once: \(overlap)")

            let unguarded = run(["-j8"], in: directory, scratch: Scratch())
            #expect(unguarded.status != 0 && oomKills(directory) > 0, "without --memfree the kernel kills some")
        }
    }

    @Test func memsuspendSuspendsGrowingJobsInsteadOfLettingTheKernelKillThem() throws {
        try #require(access("/usr/bin/python3", X_OK) == 0, "python3 holds the memory (.ci/run installs it)")
        try inCgroup(limit: 1 << 30) { directory in
            let scratch = Scratch()
            // Three jobs start at once and each grows to 360 MiB: 1080 MiB would not fit in 1 GiB.
            let grow =
                "python3 -c 'import time; b = []; [b.append(bytearray(20 << 20)) or time.sleep(0.1) for i in range(18)]; time.sleep(0.3)'"
            let run = futurerun(
                ["-q", "-j3", "--memsuspend", "250M", "--json", "jobs.json", "--each", grow, ":::", "1", "2", "3"],
                shellPrefix: "echo $$ > \(directory)/cgroup.procs; ", directory: scratch.path)
            #expect(run.status == 0, "\(run.err)")
            #expect(oomKills(directory) == 0)
            let records = scratch.read("jobs.json")?.split(separator: "\n") ?? []
            #expect(records.count == 3 && records.contains { $0.contains("\"suspended\":") }, "\(records)")
        }
    }

    @Test func memsuspendRunsTheSameEightJobsSuspendingSomeInsteadOfAnOOMKill() throws {
        try #require(access("/usr/bin/python3", X_OK) == 0, "python3 holds the memory (.ci/run installs it)")
        try inCgroup(limit: 1 << 30) { directory in
            let scratch = Scratch()
            // Two start (2 × 300M is left beside a third's claim only for two); once both hold their
            // 400 MiB, less than 300M is left: the younger is suspended until the older ends.
            let run = run(["-j8", "--memsuspend", "300M", "--json", "jobs.json"], in: directory, scratch: scratch)
            #expect(run.status == 0, "\(run.err)")
            #expect(oomKills(directory) == 0)
            let records = scratch.read("jobs.json")?.split(separator: "\n") ?? []
            #expect(records.count == 8 && records.allSatisfy { $0.contains("\"status\":\"ok\"") }, "\(records)")
            #expect(records.contains { $0.contains("\"suspended\":") }, "\(records)")
            let times = stamps(scratch, 1...8)
            #expect(times.allSatisfy { $0.start > 0 && $0.end > $0.start })
        }
    }

    @Test func aSizeNoMachineCouldHaveIsRefused() throws {
        try inCgroup(limit: 1 << 30) { directory in
            let run = futurerun(["--memfree", "2G", "true"], shellPrefix: "echo $$ > \(directory)/cgroup.procs; ")
            #expect(run.status == 255 && run.errLines.count == 1, "\(run.err)")
            #expect(run.err.contains("--memfree") && run.err.contains("at most the memory there is (1G"), "\(run.err)")
        }
    }

    @Test func aMemsuspendThatCouldNeverStartAJobIsRefused() throws {
        try inCgroup(limit: 1 << 30) { directory in
            let run = futurerun(["--memsuspend", "600M", "true"], shellPrefix: "echo $$ > \(directory)/cgroup.procs; ")
            #expect(run.status == 255 && run.errLines.count == 1, "\(run.err)")
            #expect(run.err.contains("at most half the memory there is (1G"), "\(run.err)")
        }
    }

    @Test func loadOneRunsAndSaysOnceWhenItHasWaitedLong() {
        let scratch = Scratch()
        let quiet = futurerun(["-q", "--load", "1", "--each", "echo {}", ":::", "1", "2"])
        #expect(quiet.status == 0 && quiet.out == "1\n2\n", "--load 1 runs: \(quiet.err)")
        // Two busy loops for 6 s: the load is 2 until they are gone.
        let burners = "p=; for i in 1 2; do (while :; do :; done) & p=\"$p $!\"; done; sleep 6; date +%s%N > calm; kill $p; "
        let run = futurerun(
            ["-q", "--load", "1", "--each", "date +%s%N > start.{}", ":::", "1"], shellPrefix: "(\(burners)) & sleep 0.3; ",
            directory: scratch.path, exec: false)
        #expect(run.status == 0, "\(run.err)")
        let calm = Int(scratch.read("calm")?.filter(\.isNumber) ?? "") ?? 0
        let start = stamps(scratch, 1...1)[0].start
        #expect(calm > 0 && start >= calm, "started after the busy loops ended")
        let waiting = run.errLines.filter { $0.hasPrefix("futurerun: waiting: load ") && $0.contains("≥ 1 (--load)") }
        #expect(waiting.count == 1, "one notice: \(run.err)")
    }

    // `-j FILE` and `--load` on real processes, told apart by the jobs' recorded stamps (in this
    // serialized suite: the busy loops below would starve the memory test's jobs).

    @Test func aJobsFileIsReadAgainAsJobsEnd() {
        let scratch = Scratch()
        scratch.write("procs", "1\n")
        // The first job widens the run to 3 while it runs; the rest then run three at a time.
        let job = "date +%s%N > start.{}; [ {} = 1 ] && echo 3 > procs; sleep 0.4; date +%s%N > end.{}"
        let run = futurerun(["-q", "-j", "procs", "--each", job, ":::"] + (1...7).map(String.init), directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        let times = stamps(scratch, 1...7)
        #expect(times.allSatisfy { $0.start > 0 && $0.end > $0.start })
        #expect(times.dropFirst().allSatisfy { $0.start >= times[0].end }, "one at a time until the first job ended")
        let overlap = mostAtOnce(times)
        #expect(overlap == 3, "three at a time after: \(overlap)")
        let missing = futurerun(["-j", "nofile", "true"], directory: scratch.path)
        #expect(missing.status == 255 && missing.err.contains("invalid value 'nofile' for '-j'"), "\(missing.err)")
        scratch.write("words", "three\n")
        let words = futurerun(["-j", "words", "true"], directory: scratch.path)
        #expect(words.status == 255 && words.err.contains("a file holding a number of jobs"), "\(words.err)")
    }

    @Test func loadKeepsJobsWaitingWhileTheMachineIsBusy() {
        let scratch = Scratch()
        // 16 busy loops for a second: the load is over 12 until they are gone.
        let burners =
            "p=; for i in $(seq 16); do (while :; do :; done) & p=\"$p $!\"; done; sleep 1; date +%s%N > calm; kill $p; "
        let job = "date +%s%N > start.{}"
        let run = futurerun(
            ["-q", "--load", "12", "--each", job, ":::", "1", "2"], shellPrefix: "(\(burners)) & sleep 0.3; ",
            directory: scratch.path, exec: false)
        #expect(run.status == 0, "\(run.err)")
        let calm = Int(scratch.read("calm")?.filter(\.isNumber) ?? "") ?? 0
        let starts = stamps(scratch, 1...2).map(\.start)
        #expect(calm > 0 && starts.allSatisfy { $0 >= calm }, "started after the busy loops ended: \(starts) vs \(calm)")
    }
}
