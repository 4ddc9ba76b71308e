import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

@Suite struct CIAndTerminal {
    @Test func githubActionsGetsGroupsAndErrorAnnotations() {
        let run = futurerun(
            ["--names", "lint,test", "echo linted", ":::", "echo broke >&2; exit 2"], environment: [("GITHUB_ACTIONS", "true")])
        let lines = run.errLines
        #expect(run.out == "linted\n")
        #expect(lines.contains { $0.hasPrefix("::group::lint ok ") })
        #expect(lines.contains { $0.hasPrefix("::group::test FAIL ") })
        #expect(lines.filter { $0 == "::endgroup::" }.count == 2)
        #expect(lines.contains("::error title=futurerun job 2 failed::test: exit 2"))
        #expect(run.status == 1)
    }

    @Test func inputCannotIssueAWorkflowCommandThroughAnAnnotation() {
        let run = futurerun(
            ["-0", "--each", "@t-{} echo {}"], environment: [("GITHUB_ACTIONS", "true")],
            shellPrefix: "printf 'x\\n::warning title=injected::pwned\\0' | ", exec: false)
        #expect(run.status == 1, "\(run.err)")
        #expect(!run.errLines.contains { $0.hasPrefix("::warning") }, "\(run.err)")
        let annotation = run.errLines.first { $0.hasPrefix("::error ") }
        #expect(annotation?.contains("%0A") == true || annotation?.contains("^J") == true, "\(run.err)")
    }

    @Test func theStepSummaryShowsLabelsAsText() {
        let scratch = Scratch()
        let summary = scratch.file("summary.md")
        let run = futurerun(
            ["--names", "![x](https://example.org/t.png),<img src=x>|*b*", "exit 1", ":::", "exit 2"],
            environment: [("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", summary)])
        #expect(run.status == 2)
        let text = scratch.read("summary.md") ?? ""
        for markup in ["![", "](", "<img", "*b*", "https:"] { #expect(!text.contains(markup), "\(markup) in \(text)") }
        #expect(text.contains("&#33;&#91;x&#93;&#40;https&#58;&#47;&#47;example&#46;org&#47;t&#46;png&#41;"))
    }

    @Test func theStepSummaryIsWrittenWheneverItsFileIsNamed() {
        // A runner that only names the file (a self-hosted one, act, a wrapper): no GITHUB_ACTIONS.
        let scratch = Scratch()
        let run = futurerun(["-q", "true", ":::", "exit 3"], environment: [("GITHUB_STEP_SUMMARY", scratch.file("summary.md"))])
        #expect(run.status == 1)
        #expect((scratch.read("summary.md") ?? "").contains("exit 3"), "\(scratch.read("summary.md") ?? "nothing")")
    }

    @Test func gitlabGetsCollapsibleSections() {
        let run = futurerun(["--ci", "gitlab", "--names", "build", "echo built"])
        #expect(run.err.contains("section_start:"))
        #expect(run.err.contains(":futurerun_job_1[collapsed=true]\r\u{1B}[0Kbuild ok"))
        #expect(run.err.contains("section_end:"))
        #expect(run.out == "built\n")
    }

    @Test func ciNoneAndNoMarkersOutsideCI() {
        // Under GitHub Actions with `--ci none`, and outside CI (the tests' environment switches
        // CI detection off): plain status lines only.
        let forcedOff = futurerun(["--ci", "none", "--names", "build", "echo built"], environment: [("GITHUB_ACTIONS", "true")])
        let outside = futurerun(["--names", "build", "echo built"])
        for run in [forcedOff, outside] {
            #expect(run.status == 0)
            #expect(run.out == "built\n")
            #expect(run.errLines.first?.hasPrefix("ok   [1/1] build  ") == true, "\(run.err)")
            #expect(!run.err.contains("::") && !run.err.contains("section_start:"), "\(run.err)")
        }
    }

    @Test(.enabled(if: access("/usr/bin/script", X_OK) == 0))
    func progressLineIsDrawnAndClearedOnATerminal() {
        // script(1) gives futurerun a pseudo-terminal for stdout and stderr.
        let line = "\(quoted(futurerunPath)) 'sleep 1.3' ::: 'echo hi'"
        var command = Command.shell("script -qec \(quoted(line)) /dev/null")
        command.environment = [("CI", ""), ("NO_COLOR", ""), ("TERM", "xterm")]
        let output = String(decoding: command.run().value.stdout.bytes(), as: UTF8.self)
        #expect(output.contains("\r\u{1B}[K[0/2] "))
        #expect(output.contains(" running"))
        #expect(output.contains("\u{1B}[32mok  \u{1B}[0m"))
        // Cleared before the summary.
        #expect(output.contains("\r\u{1B}[K2 jobs in "))
    }

    @Test func noProgressLineWhenStderrIsNotATerminal() {
        let run = futurerun(["sleep 1.2"])
        #expect(run.errLines.first?.hasPrefix("ok   [1/1] sleep 1.2  1.") == true, "\(run.err)")
        #expect(!run.err.contains("\u{1B}[K") && !run.err.contains("\r"))
    }

    @Test func installPutsBinaryManPageAndCompletionsUnderThePrefix() {
        let scratch = Scratch()
        let root = packageRoot()
        let run = Command.shell(
            "make -s -C \(quoted(root)) install-files PREFIX=\(quoted(scratch.path)) BIN=\(quoted(futurerunPath))"
        ).run().value
        #expect(run.status == .exited(0), "\(String(decoding: run.stderr.bytes(), as: UTF8.self))")
        for file in [
            "bin/futurerun", "share/man/man1/futurerun.1", "share/bash-completion/completions/futurerun",
            "share/zsh/site-functions/_futurerun", "share/fish/vendor_completions.d/futurerun.fish",
        ] {
            #expect(scratch.exists(file), "\(file) missing")
        }
        #expect(Command.shell("\(quoted(scratch.file("bin/futurerun"))) --version").run().value.succeeded)
        _ = Command.shell("make -s -C \(quoted(root)) uninstall PREFIX=\(quoted(scratch.path))").run().value
        #expect(!scratch.exists("bin/futurerun"))
        #expect(!scratch.exists("share/man/man1/futurerun.1"))
    }
}

/// The package's root folder (above .build).
func packageRoot() -> String {
    var path = futurerunPath
    while !path.isEmpty, !path.hasSuffix("/.build") { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    return String(path.dropLast("/.build".count))
}
