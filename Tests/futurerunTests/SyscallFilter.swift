import FutureProcess
import Glibc
import TestSupport

/// A launcher that runs a program under a seccomp filter refusing some system calls, so that a
/// test can meet a kernel (or a limit) that this machine does not have:
/// - ``noPidfd``: `pidfd_open` fails with ENOSYS, as on a kernel before Linux 5.3 (RHEL 8's 4.18);
/// - ``noThreads``: a new thread cannot start (`clone3` ENOSYS, then `clone` with CLONE_THREAD
///   EAGAIN, as when a process limit is reached); processes still start.
enum SyscallFilter: String {
    case noPidfd = "no-pidfd"
    case noThreads = "no-threads"

    /// The command prefix that runs what follows under this filter: the launcher, compiled with
    /// the toolchain's clang (or the system's cc) into `scratch`; `nil` without a compiler.
    func prefix(in scratch: Scratch) -> [String]? {
        guard let launcher = Self.launcher(in: scratch) else { return nil }
        return [launcher, rawValue]
    }

    private static func launcher(in scratch: Scratch) -> String? {
        if scratch.exists("refuse") { return scratch.file("refuse") }
        scratch.write("refuse.c", source)
        let candidates: [String] = ["/opt/swift/usr/bin/clang", "/usr/bin/cc"]
        guard let compiler = candidates.first(where: { access($0, X_OK) == 0 }) else { return nil }
        let built = Command([compiler, "-o", scratch.file("refuse"), scratch.file("refuse.c")]).run().value
        return built.status == .exited(0) ? scratch.file("refuse") : nil
    }

    /// usage: refuse no-pidfd|no-threads PROGRAM [ARGUMENT...]
    private static let source = #"""
        #define _GNU_SOURCE
        #include <errno.h>
        #include <linux/filter.h>
        #include <linux/seccomp.h>
        #include <sched.h>
        #include <stddef.h>
        #include <stdio.h>
        #include <string.h>
        #include <sys/prctl.h>
        #include <sys/syscall.h>
        #include <unistd.h>
        #ifndef __NR_pidfd_open
        #define __NR_pidfd_open 434
        #endif
        #ifndef __NR_clone3
        #define __NR_clone3 435
        #endif
        #define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
        #define REFUSE(error) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((error) & SECCOMP_RET_DATA))
        #define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
        int main(int argc, char **argv) {
            struct sock_filter noPidfd[] = {
                LOAD(nr), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 0, 1), REFUSE(ENOSYS), ALLOW,
            };
            struct sock_filter noThreads[] = {
                LOAD(nr),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1), REFUSE(ENOSYS),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
                LOAD(args[0]), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1), REFUSE(EAGAIN),
                ALLOW,
            };
            struct sock_fprog program;
            if (argc >= 3 && strcmp(argv[1], "no-pidfd") == 0) {
                program = (struct sock_fprog){.len = sizeof noPidfd / sizeof noPidfd[0], .filter = noPidfd};
            } else if (argc >= 3 && strcmp(argv[1], "no-threads") == 0) {
                program = (struct sock_fprog){.len = sizeof noThreads / sizeof noThreads[0], .filter = noThreads};
            } else {
                fprintf(stderr, "usage: refuse no-pidfd|no-threads PROGRAM [ARGUMENT...]\n");
                return 125;
            }
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program)) {
                perror("refuse");
                return 125;
            }
            execv(argv[2], argv + 2);
            perror("refuse: exec");
            return 126;
        }
        """#
}
