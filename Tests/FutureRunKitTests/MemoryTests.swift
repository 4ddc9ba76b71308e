import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// `--memfree`'s parts as values: sizes as GNU parallel reads them, recorded `/proc` and cgroup
/// files, and the admission's decisions.
@Suite struct Memory {
    @Test func sizesReadAsGNUParallelReadsThem() throws {
        let size = { (text: String) in try OptionValue.byteSize(text, option: "--memfree") }
        #expect(try size("450M") == 450 << 20 && size("2G") == 2 << 30 && size("2Gi") == 2 << 30 && size("2gi") == 2 << 30)
        #expect(try size("1.5g") == 1_500_000_000 && size("1k") == 1000 && size("64K") == 65536 && size("4096") == 4096)
        for bad in ["", "x", "0", "1X", "1MB", "-1G"] {
            #expect(throws: UsageError.self, "\(bad)") { try size(bad) }
        }
    }

    @Test func meminfoGivesAvailableAndTotal() {
        let text = "MemTotal:       32768000 kB\nMemFree:         1000 kB\nMemAvailable:   23894544 kB\n"
        let read = MemoryReadings.meminfo(text)
        #expect(read?.available == 23_894_544 * 1024 && read?.total == 32_768_000 * 1024)
        #expect(MemoryReadings.meminfo("MemTotal: 1 kB\n") == nil)
    }

    @Test func theCgroupIsFoundUnderItsMountVersion1First() {
        let mountinfo = """
            31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """
        let cgroup = "5:devices:/\n4:memory:/ci/job7\n0::/\n"
        let directories = MemoryReadings.cgroupDirectories(cgroup: cgroup, mountinfo: mountinfo).map(\.path)
        #expect(directories == ["/sys/fs/cgroup/memory/ci/job7", "/sys/fs/cgroup/memory/ci", "/sys/fs/cgroup/memory"])
        let v2 = MemoryReadings.cgroupDirectories(
            cgroup: "0::/system.slice/build.service\n",
            mountinfo: "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n")
        #expect(v2.map(\.path) == ["/sys/fs/cgroup/system.slice/build.service", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup"])
        #expect(v2.allSatisfy { $0.version == 2 })
        // A container's view: its cgroup is the mount's root.
        let container = MemoryReadings.cgroupDirectories(
            cgroup: "0::/docker/abc\n", mountinfo: "30 23 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n")
        #expect(container.map(\.path) == ["/sys/fs/cgroup"])
    }

    @Test func theTightestLimitAboveDecides() {
        let files: [String: String] = ["memory.max": "max\n", "memory.current": "100\n"]
        #expect(MemoryReadings.level(version: 2, read: { files[$0] }) == .init(limit: nil, usage: 100))
        let v1: [String: String] = ["memory.limit_in_bytes": "1073741824\n", "memory.usage_in_bytes": "268435456\n"]
        #expect(MemoryReadings.level(version: 1, read: { v1[$0] }) == .init(limit: 1 << 30, usage: 256 << 20))
        let unlimited: [String: String] = ["memory.limit_in_bytes": "9223372036854771712", "memory.usage_in_bytes": "5"]
        #expect(MemoryReadings.level(version: 1, read: { unlimited[$0] })?.limit == nil)
        let readings = MemoryReadings(
            machineAvailable: 8 << 30, machineTotal: 16 << 30,
            levels: [.init(limit: 1 << 30, usage: 256 << 20), .init(limit: nil, usage: 9 << 30), .init(limit: 4 << 30, usage: 0)])
        #expect(readings.available == 768 << 20 && readings.total == 1 << 30)
    }

    @Test func aJobStartsOnlyWhileItsSizeIsFreeCountingJobsNotGrownYet() {
        let admission = MemoryAdmission(reserve: 450 << 20)
        #expect(admission.decide(available: 1 << 30, running: 0, claiming: 0) == .start(2))
        #expect(admission.decide(available: 800 << 20, running: 1, claiming: 1) == .wait, "the new job may take 450M yet")
        #expect(admission.decide(available: 1 << 30, running: 1, claiming: 1) == .start(1))
        #expect(admission.decide(available: 600 << 20, running: 1, claiming: 0) == .start(1))
        #expect(admission.decide(available: 200 << 20, running: 2, claiming: 0) == .evictYoungest)
        #expect(admission.decide(available: 200 << 20, running: 1, claiming: 0) == .wait, "one job alone is never stopped")
        #expect(admission.decide(available: 600 << 20, running: 1, claiming: 0, stoppedBefore: true) == .wait)
        #expect(admission.decide(available: 700 << 20, running: 1, claiming: 0, stoppedBefore: true) == .start(1))
    }
}

/// `--load` and `-j FILE` as values.
@Suite struct LoadAndJobsFile {
    @Test func loadIsWhatOtherUserThreadsRunOrWaitForTheDiskNow() {
        let running = "42 (my prog) R 1 42 42 0 -1 4194560 1 0 0 0 5 2"
        let kernel = "17 (kworker/0:1) D 2 0 0 0 -1 69238880 0 0 0 0 0 0"
        let sleeping = "7 (sshd) S 1 7 7 0 -1 4194560 0 0 0 0 0 0"
        let fields = [running, kernel, sleeping].map { RunnableThreads.fields($0)! }
        #expect(fields.map(RunnableThreads.isBusy) == [true, true, false])
        #expect(fields.map(RunnableThreads.isKernelThread) == [false, true, false], "PF_KTHREAD")
        #expect(RunnableThreads.fields("1 (a) R") == nil)
        let load = LoadAdmission(limit: 1)
        #expect(load.more(busy: 0) == 1, "--load 1 runs on an idle machine")
        #expect(load.more(busy: 1) == 0 && LoadAdmission(limit: 4).more(busy: 3) == 1)
    }

    @Test func theLoadLeavesOutFuturerunsOwnThreads() throws {
        // Two scans of the machine a moment apart: other processes' threads come and go between
        // them (CI: 3 against 1), so a few pairs are taken; leaving threads out never adds one.
        var pairs: [(others: Int, all: Int)] = []
        for _ in 1...20 {
            let all = try #require(RunnableThreads.count(excluding: 0))
            let others = try #require(RunnableThreads.count())
            pairs.append((others, all))
            if others <= all { break }
        }
        #expect(pairs.contains { $0.others <= $0.all }, "\(pairs)")
    }

    @Test func aJobsValueThatIsNoNumberIsAFile() throws {
        #expect(try OptionValue.jobs("/proc/cpuinfo", option: "-j") == .file("/proc/cpuinfo"), "an existing file")
        #expect(try OptionValue.jobs("4", option: "-j") == .count(4))
        for bad in ["4x", "procs-that-are-not-here"] {
            #expect(throws: UsageError.self) { try OptionValue.jobs(bad, option: "-j") }
        }
        #expect(JobsFile.jobs(" 50%\n") == .percentOfCPUs(50) && JobsFile.jobs("three") == nil)
    }
}

/// `--memsuspend`'s decisions as values.
@Suite struct Suspension {
    @Test func jobsAreSuspendedBelowTwiceTheSizeAndResumedAbove() {
        let rule = MemorySuspension(reserve: 250 << 20)
        #expect(rule.decide(available: 600 << 20, active: 3, suspended: 0) == .hold)
        #expect(rule.decide(available: 400 << 20, active: 3, suspended: 0) == .suspend(1), "the youngest, one a reading")
        #expect(rule.decide(available: 200 << 20, active: 3, suspended: 0) == .suspend(2), "all but the oldest")
        #expect(rule.decide(available: 200 << 20, active: 1, suspended: 2) == .hold, "one runs on")
        #expect(rule.decide(available: 200 << 20, active: 0, suspended: 2) == .resumeOldest, "one always runs")
        #expect(rule.decide(available: 600 << 20, active: 1, suspended: 2) == .resumeOldest)
        #expect(rule.more(available: 1000 << 20, claiming: 0, suspended: 0) == 3)
        #expect(rule.more(available: 1000 << 20, claiming: 2, suspended: 0) == 1)
        #expect(rule.more(available: 1000 << 20, claiming: 0, suspended: 1) == 0, "nothing starts while one is suspended")
    }
}
