import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// A job of plain words runs as its program, without the shell; the rest goes through the shell as
/// ever. Seen with a shell that notes each time it runs (GNU's grammar takes it from
/// `PARALLEL_SHELL`; an explicit `--shell` always runs).
@Suite struct DirectExecRuns {
    /// A shell that appends a line to `used` in `scratch`, then is dash.
    private func noisyShell(in scratch: Scratch) -> String {
        scratch.write("sh", "#!/bin/sh\necho used >> \(quoted(scratch.file("used")))\nexec /bin/sh \"$@\"\n")
        chmod(scratch.file("sh"), 0o755)
        return scratch.file("sh")
    }

    @Test func plainWordsRunWithoutTheShellWithTheSameResults() throws {
        let scratch = Scratch()
        let shell = noisyShell(in: scratch)
        let plain = futurerun(
            ["--gnu", "-k", "/usr/bin/printf", "%s,", ":::", "a b", "it's", "$HOME"], environment: [("PARALLEL_SHELL", shell)])
        #expect(plain.out == "a b,it's,$HOME," && plain.status == 0, "\(plain.err)")
        #expect(!scratch.exists("used"), "no shell for plain words")
        // The exit status and the environment are the job's own.
        let failing = futurerun(["--gnu", "-k", "/bin/false"], stdin: "x\ny\n", environment: [("PARALLEL_SHELL", shell)])
        #expect(failing.status == 2, "\(failing.err)")
        let env = futurerun(
            ["--gnu", "-k", "/usr/bin/printenv", "FUTURERUN_JOB", "FUTURERUN_NAME", ":::", "x"],
            environment: [("PARALLEL_SHELL", shell)])
        #expect(env.out == "1\nx\n", "\(env.err)")
        #expect(!scratch.exists("used"))
        // What needs the shell gets it: a builtin, an expansion, a missing program (the shell says so).
        let shelled = futurerun(
            ["--gnu", "-k", "echo {}; nosuchprogram-\(getpid())", ":::", "a"], environment: [("PARALLEL_SHELL", shell)])
        #expect(shelled.out == "a\n" && shelled.err.contains("not found"), "\(shelled.err)")
        #expect(scratch.read("used") == "used\n")
        // An explicit --shell runs every job.
        let explicit = futurerun(["-q", "--shell", shell, "--each", "/bin/true {}", ":::", "a", "b"])
        #expect(explicit.status == 0 && scratch.read("used") == "used\nused\nused\n", "\(explicit.err)")
    }

    @Test func aFunctionBashExportedIsCalledNotTheProgramOfItsName() {
        // bash exports the function to futurerun (dash would drop such a variable on the way).
        let run = futurerun(
            ["-q", "printenv HOME", ":::", "/usr/bin/printenv NO_SUCH_VARIABLE_\(getpid()) || echo program"],
            shellPrefix: "bash -c 'printenv() { echo function; }; export -f printenv; exec \"$@\"' bash ", exec: false)
        #expect(run.out == "function\nprogram\n", "\(run.err)")
    }

    @Test func aScriptWithoutAnInterpreterLineStillRunsAsTheShellWould() {
        let scratch = Scratch()
        scratch.write("bare", "echo bare ran \"$@\"\n")
        chmod(scratch.file("bare"), 0o755)
        let run = futurerun(["-q", "--each", "./bare {}", ":::", "x"], directory: scratch.path)
        #expect(run.out == "bare ran x\n" && run.status == 0, "\(run.err)")
    }
}
