import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// A kernel without `pidfd_open` (before Linux 5.3: RHEL 8's 4.18), reproduced by a seccomp filter
/// that makes the call fail with ENOSYS, as such a kernel does (``SyscallFilter/noPidfd``).
@Suite struct KernelWithoutPidfd {
    /// Whether futurerun, run as given, catches SIGCHLD (the portable watcher's handler): a job
    /// reads its parent's caught-signal mask.
    static func catchesChildSignal(_ prefix: [String], environment: [(name: String, value: String)] = []) -> Bool? {
        var command = Command(prefix + [futurerunPath, "-q", "grep SigCgt /proc/$PPID/status"])
        command.environment = environment
        let output = String(decoding: command.run().value.stdout.bytes(), as: UTF8.self)
        guard let field = output.split(separator: "\t").last, let mask = UInt64(field.filter { !$0.isNewline }, radix: 16)
        else { return nil }
        return mask & (1 << (UInt64(SIGCHLD) - 1)) != 0
    }

    @Test func withoutPidfdTheEngineWatchesExitsThroughSIGCHLDAndRunsEveryJob() throws {
        let scratch = Scratch()
        let withoutPidfd = try #require(SyscallFilter.noPidfd.prefix(in: scratch), "no C compiler to build the seccomp launcher")
        // Unforced (`make test` also runs this suite with the portable watcher forced).
        let automatic = [(name: "FUTURECORE_EXIT_WATCHER", value: "")]
        #expect(Self.catchesChildSignal([], environment: automatic) == false, "with pidfd, no SIGCHLD handler")
        #expect(Self.catchesChildSignal(withoutPidfd, environment: automatic) == true, "without pidfd, the portable watcher")
        #expect(Self.catchesChildSignal([], environment: [("FUTURECORE_EXIT_WATCHER", "childSignal")]) == true)
        let jobs = (1...50).map { "sleep 0.0\($0 % 3); echo \($0)" }.joined(separator: "\n")
        scratch.write("jobs", jobs + "\nexit 3\n")
        let run = Command(withoutPidfd + [futurerunPath, "-q", "-j8", "-a", scratch.file("jobs")]).run().value
        #expect(String(decoding: run.stdout.bytes(), as: UTF8.self) == (1...50).map { "\($0)\n" }.joined())
        #expect(run.status == .exited(1))
    }
}
