import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `--slurm` and `--shard auto` on a real one-node cluster started by each test.
@Suite(.serialized) struct SlurmRuns {
    /// A batch script that runs futurerun with `arguments` (shell words) in place of the shell, so
    /// that a signal for the batch step (`sbatch --signal=B:HUP@120`, `scancel --signal=HUP
    /// --batch`) reaches it.
    private func batchScript(_ name: String, in scratch: Scratch, _ arguments: String) {
        scratch.write(name, "#!/bin/sh\nexec \(quoted(futurerunPath)) \(arguments)\n")
    }

    @Test func eachJobIsAStepOnTheAllocationsNodeInOrderWithJFromTheAllocation() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let job =
            "date +%s%N > start.{}; echo \"{} $SLURM_STEP_ID\" > step.{}; sleep 0.3; echo out {}; date +%s%N > end.{}"
        let run = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n3 \(quoted(futurerunPath)) --slurm --joblog log --json jobs.json "
                + "--each \(quoted(job)) ::: $(seq 7) 2>err")
        #expect(run.status == .exited(0), "\(scratch.read("err") ?? "")")
        #expect(run.out == (1...7).map { "out \($0)\n" }.joined(), "output in input order")
        // Each job a step of its own.
        let steps = (1...7).compactMap { scratch.read("step.\($0)")?.split(separator: " ").last.map(String.init) }
        #expect(steps.count == 7 && Set(steps).count == 7 && steps.allSatisfy { Int($0.filter(\.isNumber)) != nil }, "\(steps)")
        // -j from the allocation: three at once, never more.
        let times = stamps(scratch, 1...7)
        let overlap = mostAtOnce(times)
        #expect(overlap == 3, "\(times)")
        // The node is the host in the reports.
        let host = String(decoding: Command(["hostname", "-s"]).run().value.stdout.bytes(), as: UTF8.self).filter {
            !$0.isWhitespace
        }
        let log = scratch.read("log")?.split(separator: "\n").dropFirst() ?? []
        #expect(log.count == 7 && log.allSatisfy { $0.split(separator: "\t")[1] == host }, "\(log)")
        #expect(scratch.read("jobs.json")?.contains("\"host\":\"\(host)\"") == true)
        #expect(scratch.read("err")?.contains("on \(host)") == true)
        #expect(cluster.steps.isEmpty)
    }

    @Test func aTimeoutAndSIGINTLeaveNoStepAndNoProcess() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let marker = "31.\(getpid() % 1000)7"
        let timedOut = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n2 \(quoted(futurerunPath)) -q --slurm --timeout 1s 'sleep \(marker)' 2>err"
        )
        #expect(timedOut.status == .exited(1), "\(scratch.read("err") ?? "")")
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
        #expect(!processAlive("sleep \(marker)"))
        // SIGINT to futurerun while two steps run: srun gets TERM and cancels its step.
        let interrupted = cluster.shell(
            """
            cd \(quoted(scratch.path)) && salloc -Q -n2 sh -c '\(quoted(futurerunPath)) -q --slurm \
            --each "touch started.{}; sleep \(marker)" ::: 1 2 3 & p=$!; \
            i=0; while [ $(ls | grep -c started) -lt 2 ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; \
            kill -INT $p; wait $p'
            """)
        #expect(interrupted.status == .exited(130))
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
        #expect(!processAlive("sleep \(marker)"))
    }

    @Test func hupAtTheTimeLimitResumesInTheNextAllocationWithNothingTwiceNorLost() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        batchScript(
            "batch.sh", in: scratch, "-q --slurm -j2 --joblog log --resume --each 'echo {} >> ran; sleep 0.4' ::: $(seq 10)")
        let first = cluster.shell("cd \(quoted(scratch.path)) && sbatch --parsable -n2 -o out.1 batch.sh")
        let job = first.out.filter(\.isNumber)
        try #require(!job.isEmpty, "sbatch: \(first.out)")
        // HUP once three jobs have run: the running ones finish, nothing new starts.
        _ = cluster.shell(
            """
            cd \(quoted(scratch.path)); i=0; while [ $(cat ran 2>/dev/null | wc -l) -lt 3 ] && [ $i -lt 500 ]; do \
            sleep 0.02; i=$((i+1)); done; scancel --signal=HUP --batch \(job); \
            while squeue -h -j \(job) 2>/dev/null | grep -q .; do sleep 0.1; done
            """)
        let ranFirst = scratch.read("ran")?.split(separator: "\n").map(String.init) ?? []
        #expect(ranFirst.count >= 3 && ranFirst.count < 10, "stopped early: \(ranFirst)")
        let second = cluster.shell(
            "cd \(quoted(scratch.path)) && sbatch --parsable --wait -n2 -o out.2 batch.sh")
        #expect(second.status == .exited(0))
        let ran = scratch.read("ran")?.split(separator: "\n").map(String.init) ?? []
        #expect(ran.sorted { Int($0)! < Int($1)! } == (1...10).map(String.init), "each once: \(ran)")
    }

    @Test func aJobArrayRunsEveryJobExactlyOnceWithShardAuto() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        batchScript("array.sh", in: scratch, "-q --shard auto --each 'echo {} $SLURM_ARRAY_TASK_ID >> ran' ::: $(seq 40)")
        let run = cluster.shell("cd \(quoted(scratch.path)) && sbatch --parsable --wait --array=0-3 -o 'out.%a' array.sh")
        #expect(run.status == .exited(0))
        let lines = scratch.read("ran")?.split(separator: "\n") ?? []
        let jobs = lines.map { String($0.split(separator: " ")[0]) }
        #expect(jobs.sorted { Int($0)! < Int($1)! } == (1...40).map(String.init), "each job once: \(lines)")
        #expect(Set(lines.map { $0.split(separator: " ").last! }).count == 4, "every task ran some")
    }

    @Test func slurmSlotsRunEachSlotsJobsInOneStepWithOrderOutputAndTimeouts() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let job = "echo \"{} out\"; echo \"{} err\" >&2; echo $SLURM_STEP_ID >> steps; [ {} != 3 ]"
        let run = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n2 \(quoted(futurerunPath)) --slurm --slurm-slots --json jobs.json "
                + "--each \(quoted(job)) ::: $(seq 12) 2>err")
        #expect(run.status == .exited(1), "job 3 fails: \(scratch.read("err") ?? "")")
        #expect(run.out == (1...12).map { "\($0) out\n" }.joined(), "stdout in input order")
        let err = scratch.read("err") ?? ""
        #expect((1...12).allSatisfy { err.contains("\($0) err\n") }, "each job's stderr, apart from its stdout: \(err)")
        #expect(err.contains("FAIL [3/12] 3") && err.contains("exit 1"))
        // Two slots, two steps: every job ran in one of them.
        let steps = Set(scratch.read("steps")?.split(separator: "\n") ?? [])
        #expect(steps.count == 2, "\(steps)")
        // A timeout stops the job's step; the slot's next job gets another, and nothing is left.
        let marker = "41.\(getpid() % 1000)9"
        let timed = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n1 \(quoted(futurerunPath)) -q --slurm --slurm-slots --timeout 1s "
                + "--each 'sleep {}; echo done {}' ::: \(marker) 0.1 2>err2")
        #expect(timed.status == .exited(1) && timed.out == "done 0.1\n", "\(scratch.read("err2") ?? "")")
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
        #expect(!processAlive("sleep \(marker)"))
        // A job that ignores TERM is KILLed after the grace: still a timeout, not "exit 137".
        let stubborn = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n1 \(quoted(futurerunPath)) -q --slurm --slurm-slots --timeout 0.5s "
                + "--grace 0.3s --json stubborn.json 'trap \"\" TERM; sleep \(marker)' 2>err3")
        #expect(stubborn.status == .exited(1), "\(scratch.read("err3") ?? "")")
        #expect(scratch.read("stubborn.json")?.contains("\"timed_out\":true") == true, "\(scratch.read("stubborn.json") ?? "")")
        #expect(!processAlive("sleep \(marker)"))
    }

    /// As on this machine, a job's background children end with it (TERM, KILL after the grace):
    /// they neither hold the run open nor write into the next job's output, in a step of their
    /// own or one after another in a slot's step.
    @Test(arguments: ["", "--slurm-slots"])
    func aJobsLeftoverChildrenEndWithItAndWriteIntoNoOtherJob(slots: String) throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let marker = "52.\(getpid() % 1000)7"
        let run = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n1 \(quoted(futurerunPath)) -q -j1 --slurm \(slots) --grace 1s "
                + "'(sleep 0.3; echo LEAK) & echo main' ::: '(sleep \(marker)) & echo held' "
                + "::: '(trap \"\" TERM; touch armed; sleep 0.4; echo STUBBORN) & until [ -e armed ]; do sleep 0.01; done; echo ignores' "
                + "::: 'sleep 0.8; echo next' 2>err")
        #expect(run.status == .exited(0), "\(scratch.read("err") ?? "")")
        // Only a child that ignores TERM outlives its job, and only within the grace.
        #expect(run.out == "main\nheld\nignores\nSTUBBORN\nnext\n")
        #expect(!processAlive("sleep \(marker)"))
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
    }

    /// Ten jobs of half a second, two at a time, logged for `--resume`: the run both tests end.
    private static func resumableRun(_ mode: String = "") -> String {
        "\(quoted(futurerunPath)) -q -j2 --slurm \(mode) --joblog log --resume --each 'sleep 0.5; echo {} >> ran' ::: $(seq 10)"
    }

    /// ``resumableRun`` in an allocation without a shell (futurerun runs in it by its variables,
    /// as on a login node, so no salloc signals it: it must see the end itself), `ending` run
    /// (with `$job` set) once three jobs have run; then the joblog's records, split in fields.
    private func runUntilTheAllocationEnds(
        in cluster: TestSlurmCluster, _ scratch: Scratch, mode: String = "", ending: String
    ) -> [[Substring]] {
        let first = cluster.shell(
            """
            cd \(quoted(scratch.path)) && job=$(salloc --no-shell -n2 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
            export SLURM_JOB_ID=$job SLURM_JOB_NODELIST=$(hostname -s) SLURM_JOB_CPUS_PER_NODE=2 SLURM_NTASKS=2
            { \(Self.resumableRun(mode)) 2>err; echo $? > status; } &
            i=0; while [ $(cat ran 2>/dev/null | wc -l) -lt 3 ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done
            \(ending)
            """)
        #expect(first.status == .exited(0))
        #expect(scratch.read("err")?.contains("has ended") == true, "\(scratch.read("err") ?? "")")
        return (scratch.read("log")?.split(separator: "\n").dropFirst() ?? []).map { $0.split(separator: "\t") }
    }

    @Test(arguments: ["", "--slurm-slots"])
    func aCancelledAllocationStopsTheRunAndResumeRunsWhatDidNotFinishOnce(mode: String) throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let logged = runUntilTheAllocationEnds(in: cluster, scratch, mode: mode, ending: "scancel $job; wait")
        #expect(scratch.read("status").flatMap { Int($0.filter(\.isNumber)) }.map { $0 > 0 } == true, "not a success")
        #expect(logged.allSatisfy { $0[6] == "0" && $0[7] == "0" }, "only finished jobs: \(logged)")
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
        expectResumeRunsEveryJobRepeatingOnlyCutOnes(in: cluster, scratch, mode: mode, logged: logged)
    }

    @Test func aNodeThatGoesDownEndsTheRunAndResumeRunsWhatDidNotFinishOnce() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        // srun exits 0 when its node fails: the steps it cut must not be logged as finished.
        let logged = runUntilTheAllocationEnds(
            in: cluster, scratch,
            ending: """
                scontrol update nodename=$(hostname -s) state=down reason=futurerun-test; wait
                scontrol update nodename=$(hostname -s) state=resume 2>/dev/null
                i=0; while ! sinfo -h -o %t | grep -q idle && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
                """)
        expectResumeRunsEveryJobRepeatingOnlyCutOnes(in: cluster, scratch, logged: logged)
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
    }

    /// Runs ``resumableRun`` again in a fresh allocation and checks what `--resume` promises after
    /// a run that was cut: every job logged as finished ran once, every other job runs now. A job
    /// whose task ended just as its step was cut (its line written, its exit not yet reported) runs
    /// again rather than be lost: only the two steps running at the cut may.
    private func expectResumeRunsEveryJobRepeatingOnlyCutOnes(
        in cluster: TestSlurmCluster, _ scratch: Scratch, mode: String = "", logged: [[Substring]]
    ) {
        let ranFirst = Set(scratch.read("ran")?.split(separator: "\n").map(String.init) ?? [])
        #expect(
            logged.allSatisfy { ranFirst.contains(String($0[0])) }, "only jobs that ran are logged: \(logged) \(ranFirst)")
        #expect(cluster.shell("cd \(quoted(scratch.path)) && salloc -Q -n2 \(Self.resumableRun(mode))").status == .exited(0))
        expectEveryJobRanRepeatingOnlyCutOnes(scratch, logged: logged)
    }

    /// Jobs 1 to `count` each wrote their line to `ran` once, but for at most the two a cut caught
    /// between their write and their exit, never one `logged` as finished.
    private func expectEveryJobRanRepeatingOnlyCutOnes(_ scratch: Scratch, logged: [[Substring]], count: Int = 10) {
        let ran = scratch.read("ran")?.split(separator: "\n").map(String.init) ?? []
        #expect(Set(ran) == Set((1...count).map(String.init)), "every job ran: \(ran)")
        let twice = Set(ran.filter { job in ran.filter { $0 == job }.count > 1 })
        let finished = logged.filter { $0[6] == "0" && $0[7] == "0" }.map { String($0[0]) }
        #expect(twice.count <= 2 && twice.isDisjoint(with: finished), "\(ran)")
    }

    /// The real time limit (a minute, Slurm's least; the controller looks every 30 s or so): the
    /// run sees its allocation end, and a `--resume` in the next one runs what did not finish.
    /// Two minutes: run once, in make test's release pass, as the tutorial is.
    @Test(.enabled(if: GNUTutorial.runsInThisPass, "run by make test's release pass only (it takes two minutes)"))
    func anAllocationOutOfTimeStopsTheRunAndResumeRunsWhatDidNotFinishOnce() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let jobs = 240  // 2 minutes of work at -j2: more than the allocation's minute
        let run = { (width: Int) in
            "\(quoted(futurerunPath)) -q -j\(width) --slurm --joblog log --resume --each 'sleep 1; echo {} >> ran' ::: $(seq \(jobs))"
        }
        let first = cluster.shell(
            """
            cd \(quoted(scratch.path)) && job=$(salloc --no-shell -n2 -t 1 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
            export SLURM_JOB_ID=$job SLURM_JOB_NODELIST=$(hostname -s) SLURM_JOB_CPUS_PER_NODE=2 SLURM_NTASKS=2
            \(run(2)) 2>err; echo $? > status
            """, timeout: .seconds(240))
        #expect(first.status == .exited(0))
        #expect(scratch.read("err")?.contains("has ended") == true, "\(scratch.read("err") ?? "")")
        #expect(scratch.read("status").flatMap { Int($0.filter(\.isNumber)) }.map { $0 > 0 } == true, "not a success")
        let logged = (scratch.read("log")?.split(separator: "\n").dropFirst() ?? []).map { $0.split(separator: "\t") }
        #expect(logged.count < jobs && logged.allSatisfy { $0[6] == "0" && $0[7] == "0" }, "only finished jobs: \(logged.count)")
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
        let second = cluster.shell("cd \(quoted(scratch.path)) && salloc -Q -n8 \(run(8))", timeout: .seconds(120))
        #expect(second.status == .exited(0))
        expectEveryJobRanRepeatingOnlyCutOnes(scratch, logged: logged, count: jobs)
    }

    @Test func aBatchJobSignalledStepsFirstResumesWhatDidNotFinish() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        batchScript(
            "batch.sh", in: scratch, "-q --slurm -j2 --joblog log --resume --each 'sleep 0.5; echo {} >> ran' ::: $(seq 10)")
        let first = cluster.shell("cd \(quoted(scratch.path)) && sbatch --parsable -n2 -o out.1 batch.sh")
        let job = first.out.filter(\.isNumber)
        try #require(!job.isEmpty, "sbatch: \(first.out)")
        _ = cluster.shell(
            """
            cd \(quoted(scratch.path)); i=0; while [ $(cat ran 2>/dev/null | wc -l) -lt 3 ] && [ $i -lt 500 ]; do \
            sleep 0.02; i=$((i+1)); done; scancel --signal=TERM \(job); \
            i=0; while squeue -h -j \(job) 2>/dev/null | grep -q . && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
            """)
        let logged = (scratch.read("log")?.split(separator: "\n").dropFirst() ?? []).map { $0.split(separator: "\t") }
        #expect(!logged.contains { $0[6] == "143" && $0[7] == "0" }, "a step killed by TERM is not an exit: \(logged)")
        let second = cluster.shell("cd \(quoted(scratch.path)) && sbatch --parsable --wait -n2 -o out.2 batch.sh")
        #expect(second.status == .exited(0))
        expectEveryJobRanRepeatingOnlyCutOnes(scratch, logged: logged)
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
    }

    @Test func aStepKilledByASignalIsLoggedWithItAsLocally() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let run = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n1 \(quoted(futurerunPath)) -q --slurm --joblog log "
                + "'kill -TERM $$' ::: 'exit 143' 2>err")
        #expect(run.status == .exited(2), "\(scratch.read("err") ?? "")")
        let logged = (scratch.read("log")?.split(separator: "\n").dropFirst() ?? []).map { $0.split(separator: "\t") }
        #expect(logged.count == 2 && logged[0][6] == "0" && logged[0][7] == "15", "\(logged)")
        #expect(logged.count == 2 && logged[1][6] == "143" && logged[1][7] == "0", "an exit stays an exit: \(logged)")
    }

    @Test func aJobThatKillsItsOwnSrunLeavesNoStepBehind() throws {
        let cluster = try TestSlurmCluster()
        let scratch = Scratch()
        let marker = "37.\(getpid() % 1000)3"
        let run = cluster.shell(
            "cd \(quoted(scratch.path)) && salloc -Q -n1 \(quoted(futurerunPath)) -q --slurm "
                + "'pkill -KILL -x srun; sleep \(marker)' 2>err")
        #expect(run.status != .exited(0), "\(scratch.read("err") ?? "")")
        #expect(cluster.steps.isEmpty, "\(cluster.steps)")
        #expect(!processAlive("sleep \(marker)"))
    }

    @Test func aSlurmEnvironmentThatMakesNoSenseIsAUsageError() {
        let list = futurerun(
            ["--slurm", "true"],
            environment: [("SLURM_JOB_ID", "5"), ("SLURM_JOB_NODELIST", "vm["), ("SLURM_JOB_CPUS_PER_NODE", "2")])
        #expect(list.status == 255 && list.errLines.count == 1 && list.err.contains("a Slurm node list"), "\(list.err)")
        let array = futurerun(["--shard", "auto", "true"], environment: [("SLURM_ARRAY_TASK_ID", "1")])
        #expect(array.status == 255 && array.err.contains("SLURM_ARRAY_TASK_COUNT beside"), "\(array.err)")
    }

    @Test func slurmOutsideAnAllocationIsRefused() {
        let run = futurerun(["--slurm", "true"], environment: [("SLURM_JOB_ID", "")])
        #expect(run.status == 255 && run.errLines.count == 1, "\(run.err)")
        #expect(run.err.contains("SLURM_JOB_ID is not set"))
    }
}
