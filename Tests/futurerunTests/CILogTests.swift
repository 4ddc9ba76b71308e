import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// The merged stdout+stderr log a CI system shows (`2>&1` into one pipe): markers always pair, in
/// every output mode, sections carry real times, and job output cannot issue workflow commands.
@Suite struct CILog {
    /// Runs futurerun with both streams in one pipe, as a CI runner records them.
    private func log(_ arguments: [String], ci: (String, String)) -> (status: Int32, lines: [String]) {
        let run = futurerun(arguments, environment: [ci], shellSuffix: " 2>&1")
        return (run.status, run.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    @Test(arguments: [["--quiet-success"], ["--live"], [], ["--retries", "2"], ["-q"]])
    func githubGroupsAlwaysPair(mode: [String]) {
        let (_, lines) = log(mode + ["echo ok1", ":::", "echo bad; exit 1", ":::", "echo ok3"], ci: ("GITHUB_ACTIONS", "true"))
        let opened = lines.filter { $0.hasPrefix("::group::") }.count
        let closed = lines.filter { $0 == "::endgroup::" }.count
        #expect(opened == closed, "\(mode): \(lines)")
        // A group closes before the next opens.
        var depth = 0
        for line in lines {
            if line.hasPrefix("::group::") { depth += 1 }
            if line == "::endgroup::" { depth -= 1 }
            #expect(depth == 0 || depth == 1, "\(lines)")
        }
    }

    @Test(arguments: [["--quiet-success"], ["--live"], []])
    func gitlabSectionsAlwaysPair(mode: [String]) {
        let (_, lines) = log(mode + ["echo ok1", ":::", "echo bad; exit 1"], ci: ("GITLAB_CI", "true"))
        #expect(
            lines.filter { $0.contains("section_start:") }.count == lines.filter { $0.contains("section_end:") }.count, "\(lines)"
        )
    }

    @Test func gitlabSectionsCarryTheJobsTimesAndFailedOnesAreExpanded() throws {
        let (_, lines) = log(["--names", "slow,broken", "sleep 1.2", ":::", "exit 3"], ci: ("GITLAB_CI", "true"))
        func stamp(_ kind: String, _ job: Int) throws -> Int {
            let line = try #require(lines.first { $0.contains("\(kind):") && $0.contains(":futurerun_job_\(job)") })
            let after = line.split(separator: "\(kind):", maxSplits: 1)[1]
            return try #require(Int(after.prefix { $0.isNumber }))
        }
        #expect(try stamp("section_end", 1) - stamp("section_start", 1) >= 1)
        #expect(lines.contains { $0.contains(":futurerun_job_1[collapsed=true]") })
        #expect(lines.contains { $0.contains(":futurerun_job_2\r") }, "a failed section is not collapsed: \(lines)")
    }

    @Test(arguments: [[], ["--live"], ["--quiet-success"]])
    func aJobsOutputCannotIssueWorkflowCommands(mode: [String]) {
        let (_, lines) = log(mode + ["echo '::error::forged'; echo '::endgroup::'; exit 1"], ci: ("GITHUB_ACTIONS", "true"))
        var stoppedBy: String?
        for line in lines {
            if line.hasPrefix("::stop-commands::") {
                stoppedBy = String(line.dropFirst("::stop-commands::".count))
            } else if let token = stoppedBy, line == "::\(token)::" {
                stoppedBy = nil
            } else if line.hasSuffix("::error::forged") || line.hasSuffix("::endgroup::") && line != "::endgroup::"
                || line == "::endgroup::" && stoppedBy != nil
            {
                #expect(stoppedBy != nil, "job output obeyed: \(line) in \(lines)")
            }
        }
        #expect(lines.contains { $0.hasSuffix("::error::forged") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("::error title=futurerun job 1 failed::") }, "futurerun's own annotation is obeyed")
        #expect(stoppedBy == nil, "commands are resumed at the end: \(lines)")
    }

    @Test func theFanOutExampleShowsNoStrayMarkers() {
        let scratch = Scratch()
        let binaries = String(futurerunPath[..<futurerunPath.lastIndex(of: "/")!])
        var command = Command.shell("bash \(quoted(packageRoot() + "/Examples/ci/fanout.sh")) 2>&1")
        command.environment = [("GITHUB_ACTIONS", "true"), ("CI", ""), ("PATH", binaries + ":/usr/bin:/bin")]
        command.workingDirectory = scratch.path
        let lines = String(decoding: command.run().value.stdout.bytes(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("shard ") } == false, "quiet-success shows no passing job: \(lines)")
        #expect(lines.filter { $0.hasPrefix("::group::") }.count == lines.filter { $0 == "::endgroup::" }.count, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("4 jobs in ") }, "\(lines)")
    }
}
