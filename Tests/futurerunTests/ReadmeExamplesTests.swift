import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Every `$ futurerun …` session in the README and in the man page's EXAMPLES, run as written (with
/// the binary under test as `futurerun`, in a scratch directory, stdout and stderr in one stream as
/// a terminal shows them) and compared line by line with what the document prints: times,
/// speed-ups and temporary names masked, nothing else. A `$ cat FILE` line makes FILE from the
/// lines shown under it.
@Suite struct ReadmeExamples {
    /// One fenced block's commands, each with the lines shown after it.
    struct Session: CustomTestStringConvertible, Sendable {
        let commands: [(command: String, shown: [String])]
        var testDescription: String { commands.first.map { String($0.command.prefix(60)) } ?? "" }
    }

    /// Files the sessions read that the README does not show being made.
    static let fixtures: [(marker: String, setup: String)] = [
        ("< numbers.txt", "seq 100000 > numbers.txt"),
        ("< fruit.csv", "printf 'name,qty\\napple,3\\npear,5\\nfig,1\\nplum,9\\n' > fruit.csv"),
        ("--cache-input {} --each 'gzip", "echo a > a.txt; echo b > b.txt; echo c > c.txt"),
        ("TMPDIR=/tmp/x", "mkdir -p /tmp/x"),
    ]

    /// Sessions that need a machine set up as their own suites set one up; those suites check the
    /// same behaviour.
    static let needMore: [(marker: String, reason: String)] = [
        ("lab.conf", "a private sshd lab (RemoteTests)"),
        ("salloc", "a Slurm cluster (SlurmTests)"),
        ("bytearray(400", "memory pressure, which the cgroup tests make (MemoryTests)"),
    ]

    static let sessions: [Session] = {
        let readme = readText(packageRoot() + "/README.md") ?? ""
        let blocks = readme.split(separator: "```", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map {
                Array($0.element.split(separator: "\n", omittingEmptySubsequences: false).dropFirst())
            }
        return (blocks + manPageBlocks).compactMap(session)
    }()

    /// The man page's EXAMPLES, each `.nf` … `.fi` block's lines with roff's escapes undone.
    static var manPageBlocks: [[Substring]] {
        let page = readText(packageRoot() + "/docs/futurerun.1") ?? ""
        guard let start = page.firstRange(of: ".SH EXAMPLES\n") else { return [] }
        let section = page[start.upperBound...]
        let examples = section.firstRange(of: "\n.SH ").map { section[..<$0.lowerBound] } ?? section
        return examples.split(separator: ".nf\n").dropFirst().map { block in
            let text = (block.firstRange(of: ".fi").map { block[..<$0.lowerBound] } ?? block)
                .replacing("\\-", with: "-").replacing("\\(pc", with: "·").replacing("\\e", with: "\\")
            return text.split(separator: "\n").map { Substring($0) }
        }
    }

    /// The `$ ` commands of a block's lines, each with the lines shown after it; `nil` if none.
    static func session(_ lines: [Substring]) -> Session? {
        var commands: [(command: String, shown: [String])] = []
        for line in lines {
            if line.hasPrefix("$ ") {
                commands.append((String(line.dropFirst(2)), []))
            } else if !commands.isEmpty {
                commands[commands.count - 1].shown.append(String(line))
            }
        }
        return commands.isEmpty ? nil : Session(commands: commands)
    }

    static var runnable: [Session] {
        sessions.filter { session in !needMore.contains { need in session.commands.contains { $0.command.contains(need.marker) } }
        }
    }

    /// Times (`302ms`, `1.26s`), speed-ups (`2.02x`), memory figures (`205.9M`), the random part
    /// of temporary names, and a status line's total (`[2/3]` or `[2]`: a streamed input's total is
    /// known once it has been read, which races the jobs) as placeholders.
    static func masked(_ line: String) -> String {
        let masked = line.replacing(/futurerun-[A-Za-z0-9]{6}/, with: "futurerun-XXXXXX")
            .replacing(/^(ok  |FAIL|STOP|SKIP) \[([0-9]+)(\/[0-9]+)?\]/) { "\($0.output.1) [\($0.output.2)/N]" }
            .replacing(/[0-9]+(\.[0-9]+)?(ms|s|us|µs)\b/, with: "TIME")
            .replacing(/[0-9]+\.[0-9]+x\b/, with: "N.NNx")
            .replacing(/[0-9]+(\.[0-9]+)?M available/, with: "SIZE available")
        // Jobs of about the same time are listed in the order a run measured them.
        guard masked.hasPrefix("slowest: ") else { return masked }
        return "slowest: " + masked.dropFirst(9).split(separator: ", ").sorted().joined(separator: ", ")
    }

    @Test(arguments: runnable) func runsAsShown(_ session: Session) throws {
        let scratch = Scratch()
        let bin = scratch.file(".bin")
        mkdir(bin, 0o755)
        symlink(futurerunPath, bin + "/futurerun")
        for fixture in Self.fixtures where session.commands.contains(where: { $0.command.contains(fixture.marker) }) {
            #expect(shell(fixture.setup, in: scratch, bin: bin).status == .exited(0), "\(fixture.setup)")
        }
        for (command, shown) in session.commands {
            var expected = shown
            while expected.last == "" { expected.removeLast() }
            if command.hasPrefix("cat "), !command.contains("|") {
                scratch.write(String(command.dropFirst(4)), expected.joined(separator: "\n") + "\n")
                continue
            }
            let result = shell("{ \(command)\n} 2>&1", in: scratch, bin: bin)
            let got = String(decoding: result.stdout.bytes(), as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false
            )
            .map(String.init)
            let lines = got.last == "" ? Array(got.dropLast()) : got
            #expect(lines.map(Self.masked) == expected.map(Self.masked), "$ \(command)\n\(lines.joined(separator: "\n"))")
        }
    }

    @Test(
        .disabled(
            "each needs a machine of its own, and its suite runs the same behaviour: \(needMore.map(\.reason).joined(separator: "; "))"
        ))
    func sessionsThatNeedAMachineOfTheirOwn() {}

    @Test func everySessionIsRunOrNamedAsNeedingMore() {
        #expect(Self.runnable.count >= 13, "the README's and the man page's sessions were found: \(Self.sessions.count)")
        #expect(Self.manPageBlocks.count == 3)
        for need in Self.needMore {
            #expect(
                Self.sessions.contains { $0.commands.contains { $0.command.contains(need.marker) } },
                "no session needs \(need.reason) any more: take it off the list")
        }
    }

    private func shell(_ line: String, in scratch: Scratch, bin: String) -> CommandResult {
        var command = Command(["/bin/bash", "-c", line])
        command.workingDirectory = scratch.path
        command.environment = [
            ("PATH", bin + ":" + String(cString: getenv("PATH"))), ("CI", ""), ("GITHUB_ACTIONS", ""), ("GITLAB_CI", ""),
            ("NO_COLOR", "1"),
        ]
        command.timeout = .seconds(60)
        return command.run().value
    }
}
