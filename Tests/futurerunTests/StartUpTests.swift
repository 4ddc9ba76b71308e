import TestSupport
import Testing

/// Answering without running costs only the answer: `--version`, `--help` and a usage error start
/// no thread (the engine's loop and the signal watcher start with a run). Start-up time itself is
/// measured in bench/ (`make bench-start`), never here.
@Suite struct StartUp {
    @Test func versionHelpAndUsageErrorsStartNoThread() throws {
        let scratch = Scratch()
        let noThreads = try #require(SyscallFilter.noThreads.prefix(in: scratch), "no C compiler to build the seccomp launcher")
        let prefix = noThreads.map(quoted).joined(separator: " ") + " "
        // Without a thread the run stops at once (no backtrace either: the backtracer waits for one).
        let run = futurerun(
            ["-q", "echo ran"], environment: [("SWIFT_BACKTRACE", "enable=no")], shellPrefix: prefix, exec: false)
        #expect(run.status != 0 && run.out != "ran\n", "the filter lets no run start its threads")

        let version = futurerun(["--version"], shellPrefix: prefix, exec: false)
        #expect(version.status == 0 && version.out.hasPrefix("futurerun "), "\(version.err)")
        let help = futurerun(["--help"], shellPrefix: prefix, exec: false)
        #expect(help.status == 0 && help.out.contains("--jobs"), "\(help.err)")
        let typo = futurerun(["--jbos", "2", "true"], shellPrefix: prefix, exec: false)
        #expect(typo.status == 255 && typo.err.contains("--jobs"), "\(typo.err)")
    }
}
