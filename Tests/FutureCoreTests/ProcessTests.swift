import Dispatch
import Glibc
import TestSupport
import Testing

@testable import FutureCore
@testable import FutureProcess

private func sh(_ line: String, timeout: Duration? = nil, grace: Duration = .seconds(5)) -> Command {
    var command = Command.shell(line)
    command.timeout = timeout
    command.gracePeriod = grace
    return command
}

private func text(_ output: CapturedOutput) -> String { String(decoding: output.bytes(), as: UTF8.self) }

/// Whether any process of process group `group` is still alive (zombies excepted).
private func groupIsAlive(_ group: Int32) -> Bool {
    for pid in Proc.pids() where Proc.stat(pid)?.group == group && Proc.stat(pid)?.state != "Z" { return true }
    return false
}

/// Polls `condition` for up to five seconds.

@Suite struct ProcessOutcomes {
    @Test func exitCodesAndSignalsAreData() {
        #expect(sh("exit 0").run().value.status == .exited(0))
        #expect(sh("exit 3").run().value.status == .exited(3))
        let killed = sh("kill -9 $$").run().value
        #expect(killed.status == .signaled(9))
        #expect(killed.signal == 9)
        #expect(killed.status.shellStatus == 137)
    }

    @Test(.disabled(if: isThreadSanitized, "the thread sanitizer makes vfork a fork: a failed exec is exit 127, not its errno"))
    func programsThatCannotStartReportTheShellsStatus() throws {
        let missing = Command(["/nonexistent/program"]).run().value
        #expect(missing.status == .failedToStart(errno: ENOENT))
        #expect(missing.status.shellStatus == 127)
        #expect(Command(["no-such-program-anywhere"]).run().value.status.shellStatus == 127)
        let directory = Scratch()
        let path = directory.path + "/not-executable"
        #expect(creat(path, 0o644) >= 0)
        #expect(Command([path]).run().value.status == .failedToStart(errno: EACCES))
    }

    @Test func stdoutAndStderrAreCapturedByteForByte() {
        let result = sh(#"printf 'a\000b\377\nno newline'; printf 'err\001' >&2"#).run().value
        #expect(result.stdout.bytes() == Array("a".utf8) + [0, 98, 255, 10] + Array("no newline".utf8))
        #expect(result.stderr.bytes() == Array("err".utf8) + [1])
    }

    @Test func environmentAdditionsAndWorkingDirectoryReachTheChild() throws {
        let directory = Scratch()
        var command = sh(#"printf '%s %s' "$FUTURE_TEST" "$(pwd)""#)
        command.environment = [("FUTURE_TEST", "hello")]
        command.workingDirectory = directory.path
        let output = text(command.run().value.stdout)
        #expect(output == "hello \(directory.path)")
    }

    @Test func anAdditionReplacesAnInheritedVariable() {
        var command = sh(#"printf '%s ' "$HOME"; env | grep -c '^HOME='"#)
        command.environment = [("HOME", "/elsewhere"), ("FUTURE_EMPTY", "")]
        #expect(text(command.run().value.stdout) == "/elsewhere 1\n")
        var empty = sh(#"env | grep -c '^FUTURE_EMPTY=$'"#)
        empty.environment = [("FUTURE_EMPTY", "")]
        #expect(text(empty.run().value.stdout) == "1\n")
    }

    /// `nil` removes an inherited variable; a value set after a removal sets it again.
    @Test func anUpdateCanRemoveAnInheritedVariable() {
        let line = #"printf '%s|%s|%s|' "${HOME-unset}" "${PATH-unset}" "$FUTURE_SET"; env | grep -c '^HOME='"#
        let command = sh(line).updatingEnvironment(["HOME": nil, "FUTURE_SET": "yes"])
        #expect(text(command.run().value.stdout) == "unset|\(String(cString: getenv("PATH")))|yes|0\n")
        let again = command.updatingEnvironment(["HOME": "/back"])
        #expect(text(again.run().value.stdout).hasPrefix("/back|"))
    }

    /// A pool runs its commands on the engine it is given, not the shared one.
    @Test func aPoolRunsOnItsOwnEngine() {
        let engine = ProcessEngine()
        let pool = CommandPool(width: 2, engine: engine)
        let run = pool.submit(sh("sleep 5")).value
        #expect(engine.runningCount == 1)
        run.cancel()
        #expect(run.result.value.status == .cancelled)
    }

    @Test func timingAndResourceUsageAreMeasured() {
        let result = sh("sleep 0.2; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done").run().value
        #expect(result.wallTime >= .milliseconds(190))
        #expect(result.wallTime < .seconds(10))
        #expect(result.userTime + result.systemTime > .zero)
        #expect(result.maxResidentBytes > 100_000)
        #expect(result.startTime > 1_700_000_000)
    }
}

@Suite struct ProcessOutput {
    @Test(.disabled(if: isThreadSanitized, "the thread sanitizer's shadow memory multiplies resident size"))
    func twoHundredFiftySixMebibytesStayOutOfMemory() {
        let before = Proc.residentBytes()
        let result = sh("head -c 268435456 /dev/zero").run().value
        #expect(result.succeeded)
        #expect(result.stdout.count == 268_435_456)
        #expect(result.stdout.failure == nil)
        #expect(Proc.residentBytes() - before < 64 << 20)
        let tail = result.stdout.read(from: 268_435_456 - 10)
        #expect(tail == [UInt8](repeating: 0, count: 10))
    }

    @Test func spilledOutputLeavesNoFileBehind() throws {
        let directory = Scratch()
        var command = sh("head -c 3000000 /dev/urandom; echo done")
        command.spillDirectory = directory.path
        let result = command.run().value
        #expect(result.stdout.count == 3_000_005)
        #expect(Array(result.stdout.bytes().suffix(5)) == Array("done\n".utf8))
        #expect(directory.entries().isEmpty)
    }

    @Test func outputCanBeReadWhileTheCommandRuns() {
        let run = ProcessEngine.shared.start(sh("echo first; sleep 0.5; echo second"))
        let arrived = DispatchSemaphore(value: 0)
        run.stdout.setWaker { arrived.signal() }
        // What came before the waker was set woke no one: consume it before the first wait.
        var seen = run.stdout.consume()
        while seen.count < 6 {
            _ = arrived.wait(timeout: .now() + 5)
            seen += run.stdout.consume()
        }
        #expect(seen == Array("first\n".utf8))
        #expect(!run.result.resolved)
        #expect(text(run.result.value.stdout) == "first\nsecond\n")
    }

    @Test func backgroundGrandchildHoldingThePipeDoesNotHoldTheCommand() {
        let start = ContinuousClock.now
        let result = sh("sleep 30 & echo hi").run().value
        #expect(ContinuousClock.now - start < .milliseconds(900))
        #expect(text(result.stdout) == "hi\n")
        // The grandchild got SIGTERM and has closed the pipe; it may still be on its way out (its
        // descriptors close before it becomes a zombie), so give it a moment.
        #expect(eventually { !groupIsAlive(result.processID) })
    }

    @Test func grandchildThatLeftTheGroupIsCutOffAfterTheDrainPeriod() {
        let start = ContinuousClock.now
        let result = sh("setsid sleep 3 & echo hi").run().value
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(text(result.stdout) == "hi\n")
    }
}

@Suite struct ProcessIsolation {
    @Test func childSeesOnlyStandardAndDeliberatelyInheritedDescriptors() throws {
        // A descriptor this process left inheritable (no O_CLOEXEC) passes through, as in a shell.
        let inherited = dup(2)
        defer { close(inherited) }
        // Tests running alongside open and close inheritable descriptors of their own: what the
        // child may see is bounded by the inheritable ones just before and just after its spawn.
        let before = Set([0, 1, 2] + Proc.inheritableDescriptors())
        #expect(before.contains(Int(inherited)))
        let other = ProcessEngine.shared.start(sh("sleep 1"))
        let listed = Set(text(sh("ls /proc/$$/fd").run().value.stdout).split(separator: "\n").compactMap { Int($0) })
        let after = Set([0, 1, 2] + Proc.inheritableDescriptors())
        other.cancel()
        #expect(listed.isSubset(of: before.union(after)), "not inheritable: \(listed.subtracting(before.union(after)))")
        #expect(listed.isSuperset(of: before.intersection(after)), "missing: \(before.intersection(after).subtracting(listed))")
    }

    @Test func childStartsWithAnEmptySignalMaskEvenIfTheSpawningThreadBlocksSignals() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let status = text(sh("exec grep SigBlk /proc/self/status").run().value.stdout)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        #expect(status == "SigBlk:\t0000000000000000\n")
    }

    /// The engine's thread asks for a short time slice (see `ProcessEngine.runLoop`); the children
    /// it spawns must not inherit it. Needs Linux 6.12 or later (per-task slices) with
    /// `/proc/PID/sched`; where the kernel lacks that, the test is skipped and says why.
    @Test(
        .enabled(if: ProcessScheduling.slice("/proc/self/sched") != nil, "no se.slice in /proc/self/sched: a kernel before 6.12"))
    func childrenSpawnedByTheEnginesThreadGetTheDefaultTimeSlice() throws {
        let slice = ProcessScheduling.slice
        // Started from a callback on the engine's thread, so that this thread spawns it.
        let second = Locked<Future<CommandResult>?>(nil)
        sh("true").run().onComplete(on: .inline) { _ in second.withLock { $0 = sh("grep '^se.slice ' /proc/self/sched").run() } }
        #expect(eventually { second.withLock { $0 } != nil })
        let child = try #require(second.withLock { $0 }).value
        let childSlice = Int(text(child.stdout).split(separator: " ").last?.filter(\.isNumber) ?? "")
        let engineSlices = Proc.threads().compactMap { slice("/proc/self/task/\($0)/sched") }
        #expect(engineSlices.contains(100_000))
        #expect(childSlice != nil && childSlice != 100_000)
    }

    @Test func eachChildLeadsItsOwnProcessGroup() {
        let result = sh("ps -o pgid= -p $$").run().value
        let group = Int32(text(result.stdout).filter { $0.isNumber })
        #expect(group == result.processID)
        #expect(group != getpgrp())
    }
}

@Suite struct ProcessStopping {
    @Test func timeoutKillsTheWholeProcessTree() {
        let start = ContinuousClock.now
        let result = sh("sleep 30 & sleep 30 & sleep 30", timeout: .milliseconds(200)).run().value
        #expect(result.status == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(eventually { !groupIsAlive(result.processID) })
    }

    @Test func jobIgnoringSigtermIsKilledAfterTheGracePeriod() {
        let start = ContinuousClock.now
        let result = sh("trap '' TERM; sleep 30", timeout: .milliseconds(100), grace: .milliseconds(400)).run().value
        let took = ContinuousClock.now - start
        #expect(result.status == .timedOut)
        #expect(result.signal == 9)
        #expect(took >= .milliseconds(450))
        #expect(took < .seconds(3))
    }

    @Test func cancellingACommandFutureKillsItsProcessGroup() {
        let run = ProcessEngine.shared.start(sh("sleep 30 & sleep 30"))
        usleep(50_000)
        run.cancel()
        let result = run.result.wait(timeout: .seconds(5))?.get()
        #expect(result?.status == .cancelled)
        usleep(100_000)
        #expect(result.map { !groupIsAlive($0.processID) } == true)
    }
}

@Suite struct CommandPools {
    @Test func twoThousandJobsAtWidthTwoLeaveNoZombieAndNoDescriptor() {
        let descriptorsBefore = Proc.descriptorCount()
        let pool = CommandPool(width: 2)
        let peak = Locked(0)
        let results = (0..<2000).map { index in
            pool.submit(Command(["/bin/sh", "-c", "exit $((\(index) % 3))"])).flatMap { run in
                let running = pool.running
                peak.withLock { $0 = max($0, running) }
                return run.result
            }
        }
        let all = Future.all(results).value
        #expect(all.count == 2000)
        #expect(all.enumerated().allSatisfy { $0.element.status == .exited(Int32($0.offset % 3)) })
        #expect(peak.withLock { $0 } == 2)
        // None of these 2000 is left unreaped. (Other tests run concurrently, with children and
        // descriptors of their own, some for many seconds: only ours count as zombies, and a
        // descriptor leak here would be thousands, so some dozens are allowed to the neighbours.)
        let ours = Set(all.map(\.processID))
        #expect(eventually { Proc.zombieChildren().allSatisfy { !ours.contains($0) } })
        #expect(eventually { Proc.descriptorCount() <= descriptorsBefore + 64 })
    }

    @Test func commandsStartedFromManyThreadsAtOnceAllFinishWithAllTheirOutput() {
        // Commands started from many threads while the engine reaps others and their descriptor
        // numbers are reused. A command whose one-shot registration is lost is never read again:
        // it blocks on a full pipe, or its output comes up short. (The race this found, an exit
        // handled before the child's pipes were watched, needs a preempted starting thread: this
        // shows it on a loaded machine only; 80 futurerun runs at once on two cores did, 8 in 160.)
        let sizes = [0, 100_000, 1, 70_000]
        let results = (0..<8).map { thread in
            Future {
                (0..<25).map { index in
                    let size = sizes[(thread + index) % sizes.count]
                    return Command(["/bin/sh", "-c", "head -c \(size) /dev/zero"]).run()
                }
            }
        }
        for (thread, runs) in results.enumerated() {
            for (index, run) in runs.value.enumerated() {
                let result = run.wait(timeout: .seconds(30))?.get()
                #expect(result?.status == .exited(0))
                #expect(result?.stdout.bytes().count == sizes[(thread + index) % sizes.count])
            }
        }
    }

    @Test func stoppedPoolNeverStartsWhatIsQueued() {
        let pool = CommandPool(width: 1)
        let first = pool.submit(sh("sleep 0.3"))
        let second = pool.submit(sh("echo never"))
        pool.stopStarting()
        #expect(second.value.result.value.status == .cancelled)
        #expect(first.value.result.value.status == .exited(0))
    }

    @Test func aStoppedPoolStillStartsWhatItAdmitsButOnlyInSlotsFreeAtTheStop() {
        let pool = CommandPool(width: 3)
        let running = pool.submit(sh("sleep 0.3"))
        pool.stopStarting(admittingFreeSlots: true)  // two slots are free: two are admitted
        #expect(pool.admitsMore)
        let admitted = [pool.submit(sh("exit 4")), pool.submit(sh("exit 5"))]
        #expect(!pool.admitsMore)
        let refused = pool.submit(sh("echo never"))
        #expect(admitted.map { $0.value.result.value.status } == [.exited(4), .exited(5)])
        #expect(refused.value.result.value.status == .cancelled)
        #expect(running.value.result.value.status == .exited(0))
    }

    @Test func lanesRunUpToTheirOwnWidthsAndAZeroLaneTakesNothing() {
        let pool = CommandPool(laneWidths: [1, 2, 0])
        let lanes = Locked<[Int]>([])
        let runs = (0..<4).map { _ in
            pool.submit { seat in
                lanes.withLock { $0.append(seat.lane) }
                return sh("sleep 0.3")
            }
        }
        // Three start at once, the fourth waits: lane 1 has the most room, then lanes 1 and 0.
        #expect(lanes.withLock { $0 }.sorted() == [0, 1, 1])
        #expect(pool.running(inLane: 2) == 0 && pool.queued == 1)
        pool.setWidth(1, ofLane: 2)  // the waiting one starts there, now
        #expect(lanes.withLock { $0 }.last == 2 && pool.queued == 0)
        #expect(runs.allSatisfy { $0.value.result.value.status == .exited(0) })
    }

    @Test func withdrawnQueuedCommandsNeverStartAndThePoolGoesOn() {
        let pool = CommandPool(laneWidths: [0])
        let waiting = pool.submit(sh("echo never"))
        pool.withdrawQueued()
        #expect(waiting.value.result.value.status == .cancelled)
        pool.setWidth(1, ofLane: 0)
        #expect(pool.submit(sh("exit 3")).value.result.value.status == .exited(3))
    }

    @Test func fedBytesArriveWholeThenTheEnd() {
        // More than any pipe holds: the engine writes as the child reads, then closes.
        let bytes = (0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var command = sh("cksum")
        command.input = .bytes(bytes)
        let output = command.run().value.stdout.bytes()
        // Compared with what cksum makes of the same bytes from a file.
        let scratch = Scratch()
        let file = scratch.file("bytes")
        let descriptor = open(file, O_WRONLY | O_CREAT, 0o644)
        #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        close(descriptor)
        #expect(output == sh("cksum < \(file)").run().value.stdout.bytes())
        #expect(String(decoding: output, as: UTF8.self).hasSuffix(" \(5 << 20)\n"))
        // Several at once, each its own bytes, from the one loop thread.
        let runs = (0..<8).map { index -> Future<CommandResult> in
            var each = sh("wc -c")
            each.input = .bytes(Array(repeating: UInt8(0x30 + index), count: 300_000 * (index + 1)))
            return each.run()
        }
        #expect(
            runs.map { String(decoding: $0.value.stdout.bytes(), as: UTF8.self) } == (1...8).map { "\(300_000 * $0)\n" })
    }

    /// An input of the program's own: a file opened as the child's stdin, or bytes fed its way.
    private struct OwnInput: CommandInput {
        let path: String?
        func open() throws(InputError) -> OpenedInput {
            guard let path else { return try .feeding(.bytes(Array("fed\n".utf8))) }
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw InputError(errno: errno) }
            return OpenedInput(child: descriptor)
        }
    }

    @Test func aProgramBringsAnInputOfItsOwn() {
        let scratch = Scratch()
        scratch.write("data", "from a file\n")
        var command = sh("cat")
        command.input = OwnInput(path: scratch.file("data"))
        #expect(command.run().value.stdout.bytes() == Array("from a file\n".utf8))
        command.input = OwnInput(path: nil)
        #expect(command.run().value.stdout.bytes() == Array("fed\n".utf8))
        command.input = OwnInput(path: scratch.file("missing"))
        #expect(command.run().value.status == .failedToStart(errno: ENOENT))
    }

    @Test func aChildThatStopsReadingEndsAsItsStatusSays() {
        var command = sh("head -c 10 > /dev/null; exit 3", timeout: .seconds(20))
        command.input = .bytes(Array(repeating: UInt8(0x61), count: 8 << 20))
        #expect(command.run().value.status == .exited(3))
    }

    @Test func aRelayedRunIsACommandRunWhoseOutputAndEndComeFromElsewhere() {
        let stopped = Locked(false)
        let relayed = RelayedRun { stopped.withLock { $0 = true } }
        relayed.append(stdout: Array("out".utf8))
        relayed.append(stderr: Array("err".utf8))
        #expect(!relayed.run.result.resolved)
        relayed.finish(.exited(3))
        relayed.finish(.exited(0))
        let result = relayed.run.result.value
        #expect(result.status == .exited(3) && result.exitCode == 3, "the first end counts")
        #expect(result.stdout.bytes() == Array("out".utf8) && result.stderr.bytes() == Array("err".utf8))
        #expect(relayed.run.spawned && result.processID == -1)
        let cancelled = RelayedRun { stopped.withLock { $0 = true } }
        cancelled.run.cancel()
        #expect(stopped.withLock { $0 }, "cancelling its result asks its owner to stop the job")
    }

    @Test func aFileRangeReachesTheChildThroughTheKernel() throws {
        let scratch = Scratch()
        scratch.write("data", "0123456789abcdefghij")
        var command = sh("cat")
        command.input = .fileRange(path: Array(scratch.file("data").utf8), offset: 3, length: 10)
        #expect(command.run().value.stdout.bytes() == Array("3456789abc".utf8))
        // Past the file's end: what it has.
        command.input = .fileRange(path: Array(scratch.file("data").utf8), offset: 15, length: 100)
        #expect(command.run().value.stdout.bytes() == Array("fghij".utf8))
        command.input = .fileRange(path: Array(scratch.file("missing").utf8), offset: 0, length: 1)
        #expect(command.run().value.status == .failedToStart(errno: ENOENT))
    }
}

@Suite struct GuardianTables {
    @Test func entriesAreRecordedClearedAndReusedSmallestFirst() throws {
        let table = try #require(GuardianTable(capacity: 3))
        #expect(table.groups.isEmpty)
        let first = try #require(table.record(4001))
        let second = try #require(table.record(4002))
        let third = try #require(table.record(4003))
        #expect(table.record(4004) == nil)  // full: that group is not guarded
        #expect(table.groups == [4001, 4002, 4003])
        table.clear(second)
        table.clear(first)
        #expect(table.groups == [4003])
        #expect(table.record(4005) == first)
        #expect(table.record(4006) == second)
        #expect(table.groups == [4005, 4006, 4003])
        for entry in [first, second, third] { table.clear(entry) }
        #expect(table.groups.isEmpty)
    }

    @Test func aGuardianStopsTheGroupsStillWatchedWhenItsOwnerIsGone() throws {
        // A real guardian process, started here, and a real job in a group of its own; the
        // guardian learns of the job through shared memory, after its start.
        let victim = ProcessEngine.shared.start(sh("echo $$; exec sleep 30"))
        #expect(eventually { text(victim.stdout).hasSuffix("\n") })
        let group = try #require(Int32(text(victim.stdout).dropLast()))
        var guardianPID: pid_t = 0
        do {
            let guardian = try #require(ProcessGuardian())
            guardianPID = guardian.pid
            _ = guardian.watch(group)
        }  // released: its pipe end closes, as at this process's death
        #expect(victim.result.value.status == .signaled(SIGTERM))
        var status: Int32 = 0
        #expect(waitpid(guardianPID, &status, 0) == guardianPID)
    }
}

/// The scheduler's view of a task, from `/proc`.
enum ProcessScheduling {
    /// The task's time slice in nanoseconds (`se.slice` of a sched file), if the kernel shows it.
    static func slice(_ schedFile: String) -> Int? {
        guard let text = Proc.read(schedFile) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("se.slice ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }
}

@Suite struct ProcessSuspension {
    @Test func aStoppedGroupMakesNoProgressUntilContinued() {
        let scratch = Scratch()
        let stamp = quoted(scratch.file("done"))
        let run = ProcessEngine.shared.start(Command(["/bin/sh", "-c", "sleep 0.2; date +%s%N > \(stamp)"]))
        run.signal(SIGSTOP)
        // Longer than its `sleep 0.2`: were it running, its stamp would be written by now.
        OSThread.sleep(until: .now + .milliseconds(600))
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let continued = Int(now.tv_sec) * 1_000_000_000 + now.tv_nsec
        run.signal(SIGCONT)
        #expect(run.result.value.status == .exited(0))
        let written = Int(scratch.read("done")?.filter(\.isNumber) ?? "") ?? 0
        #expect(written >= continued, "its stamp comes after SIGCONT: stopped, it made no progress")
        run.signal(SIGSTOP)  // after its end: a no-op, never a reused group's
    }
}
