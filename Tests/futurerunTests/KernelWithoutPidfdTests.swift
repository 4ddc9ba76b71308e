import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// A kernel without `pidfd_open` (before Linux 5.3: RHEL 8's 4.18), reproduced by a seccomp filter
/// that makes the call fail with ENOSYS, as such a kernel does.
@Suite struct KernelWithoutPidfd {
    /// Runs the rest of its arguments with `pidfd_open` refused (ENOSYS).
    static let launcherSource = #"""
        #include <errno.h>
        #include <linux/filter.h>
        #include <linux/seccomp.h>
        #include <stddef.h>
        #include <stdio.h>
        #include <sys/prctl.h>
        #include <unistd.h>
        #ifndef __NR_pidfd_open
        #define __NR_pidfd_open 434
        #endif
        int main(int argc, char **argv) {
            struct sock_filter filter[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            };
            struct sock_fprog program = {.len = 4, .filter = filter};
            if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program)) {
                perror("no-pidfd");
                return 125;
            }
            execv(argv[1], argv + 1);
            perror("no-pidfd: exec");
            return 126;
        }
        """#

    /// The launcher, compiled with the toolchain's clang (or the system's cc) into `scratch`.
    static func launcher(in scratch: Scratch) -> String? {
        scratch.write("no-pidfd.c", launcherSource)
        let candidates: [String] = ["/opt/swift/usr/bin/clang", "/usr/bin/cc"]
        let compilers = candidates.filter { access($0, X_OK) == 0 }
        guard let compiler = compilers.first else { return nil }
        let built = Command([compiler, "-o", scratch.file("no-pidfd"), scratch.file("no-pidfd.c")]).run().value
        return built.status == .exited(0) ? scratch.file("no-pidfd") : nil
    }

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
        let launcher = try #require(Self.launcher(in: scratch), "no C compiler to build the seccomp launcher")
        // Unforced (`make test` also runs this suite with the portable watcher forced).
        let automatic = [(name: "FUTURECORE_EXIT_WATCHER", value: "")]
        #expect(Self.catchesChildSignal([], environment: automatic) == false, "with pidfd, no SIGCHLD handler")
        #expect(Self.catchesChildSignal([launcher], environment: automatic) == true, "without pidfd, the portable watcher")
        #expect(Self.catchesChildSignal([], environment: [("FUTURECORE_EXIT_WATCHER", "childSignal")]) == true)
        let jobs = (1...50).map { "sleep 0.0\($0 % 3); echo \($0)" }.joined(separator: "\n")
        scratch.write("jobs", jobs + "\nexit 3\n")
        let run = Command([launcher, futurerunPath, "-q", "-j8", "-a", scratch.file("jobs")]).run().value
        #expect(String(decoding: run.stdout.bytes(), as: UTF8.self) == (1...50).map { "\($0)\n" }.joined())
        #expect(run.status == .exited(1))
    }
}
