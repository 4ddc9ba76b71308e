import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Jobs in warm shells (``WarmShells``) keep everything they have in a shell of their own. Each
/// job of the isolation table runs in one slot (`-j1`), followed by a probe that shows what a
/// leak would leave (the directory, a variable, the umask, a function, traps, `set -e`), with
/// every isolatable job forced into the slot's warm shell (`FUTURERUN_WARM_SHELLS=all`) and with
/// warm shells off: stdout, stderr and each job's end must be the same, under dash and bash.
@Suite struct WarmShellRuns {
    static let probe =
        "echo \"pwd=$PWD x=${x-unset} umask=$(umask) f=$(command -v f) traps=[$(trap)]\"; false; echo after-false"

    static let table = [
        "cd /tmp", "exit 3", "exec echo execd", "set -e; false; echo not-reached", "trap 'echo trapped' EXIT; echo body",
        "umask 077; umask", "x=leaked; echo $x", "f() { echo fn; }; f", "read line; echo \"read:[$line]\"",
        "cat; echo cat-done", "(sleep 0.3; echo late) & echo early", "kill $$", "echo out; echo err >&2; exit 4",
        "ulimit -n 64; echo limited", "alias ls=false; echo aliased", "set -u; echo ${nosuch-fine}", "echo 5; [ 5 = 6 ]",
        "ls /proc/self/fd/ | wc -l",
    ]

    private struct Run: Equatable {
        var out: String
        var err: String
        var ends: [String]
        var paths: [String]
    }

    private func run(shell: String, warm: String, in scratch: Scratch) -> Run {
        let lines = Self.table.flatMap { [$0, Self.probe] }
        let json = scratch.file("\(warm).json")
        let arguments = ["-q", "-j1", "--shell", shell, "--json", json] + lines.flatMap { [":::", $0] }.dropFirst()
        // Both runs start with SIGINT and SIGQUIT at their defaults, whatever the test runner has
        // (started in the background by a non-interactive shell, it ignores them): the probe's
        // `trap` lists an ignored one, and a clean-clone run once saw it in one run and not in
        // the other.
        let outcome = futurerun(
            Array(arguments), environment: [("FUTURERUN_WARM_SHELLS", warm)],
            shellPrefix: withDefaultSignals, directory: scratch.path, exec: false)
        let records = (scratch.read("\(warm).json") ?? "").split(separator: "\n")
        func field(_ name: String, _ record: Substring) -> String {
            guard let range = record.firstRange(of: "\"\(name)\":") else { return "?" }
            return String(record[range.upperBound...].prefix { $0 != "," && $0 != "}" })
        }
        return Run(
            out: outcome.out, err: outcome.err, ends: records.map { field("exit", $0) + "/" + field("signal", $0) },
            paths: records.map { field("path", $0) })
    }

    @Test(arguments: ["/bin/dash", "/bin/bash"])
    func theIsolationTableGivesTheSameInAWarmShellAsInAShellOfItsOwn(shell: String) {
        let scratch = Scratch()
        let warm = run(shell: shell, warm: "all", in: scratch)
        let cold = run(shell: shell, warm: "off", in: scratch)
        #expect(warm.out == cold.out)
        #expect(warm.err == cold.err)
        #expect(warm.ends == cold.ends)
        #expect(cold.ends.count == 2 * Self.table.count && cold.out.contains("pwd=\(scratch.path) x=unset umask=0022"))
        // Every job but those a subshell cannot hold (a background job, `$$`, a trap) ran in a warm shell.
        let fresh = Set(["(sleep 0.3; echo late) & echo early", "kill $$", "trap 'echo trapped' EXIT; echo body"])
        let expected = Self.table.flatMap { [fresh.contains($0) ? "\"shell\"" : "\"warm\"", "\"warm\""] }
        #expect(warm.paths == expected)
        #expect(cold.paths.allSatisfy { $0 == "\"shell\"" })
    }

    /// A warm shell's stderr carries no frames: what it holds when a job's status comes on stdout
    /// is that job's, read at once; so is a stderr too big for its pipe, read while the job runs.
    @Test(arguments: ["/bin/dash", "/bin/bash"])
    func eachJobsStderrIsItsOwnInAWarmShell(shell: String) {
        let big = 200_000
        let jobs = ["echo e1 >&2", "printf '%0\(big)d\\n' 2 >&2; echo o2", "echo o3", "echo o4; echo e4 >&2; exit 5", "true"]
        let run = futurerun(
            ["-q", "-j1", "--tag", "--shell", shell] + jobs.flatMap { [":::", $0] }.dropFirst(),
            environment: [("FUTURERUN_WARM_SHELLS", "all")])
        #expect(run.status == 1)
        #expect(run.out == "\(jobs[1])\to2\n\(jobs[2])\to3\n\(jobs[3])\to4\n")
        let bigLine = "\(jobs[1])\t" + String(repeating: "0", count: big - 1) + "2\n"
        #expect(run.err == "\(jobs[0])\te1\n" + bigLine + "\(jobs[3])\te4\n", "\(run.err.prefix(300))")
    }

    /// A job sent behind another in the slot's shell (only behind jobs of builtins, which end at
    /// once) is timed from when the one before it ended, not from when it was sent.
    @Test(arguments: ["/bin/dash", "/bin/bash"])
    func aJobSentBehindAnotherIsTimedFromItsOwnStart(shell: String) throws {
        let scratch = Scratch()
        // The second job starts as the first ends, on the engine's thread, which sends the
        // third behind it; the second takes a while (tens of MB through its pipe).
        let jobs = ["echo a", "printf '%030000000d\\n' 0", "echo c", "echo d"]
        let run = futurerun(
            ["-q", "-j1", "--shell", shell, "--json", scratch.file("j.json")] + jobs.flatMap { [":::", $0] }.dropFirst())
        #expect(run.status == 0 && run.out.hasSuffix("0\nc\nd\n"))
        let records = (scratch.read("j.json") ?? "").split(separator: "\n")
        func number(_ name: String, _ record: Substring) throws -> Double {
            let range = try #require(record.firstRange(of: "\"\(name)\":"))
            return try #require(Double(String(record[range.upperBound...].prefix { $0 != "," && $0 != "}" })))
        }
        try #require(records.count == 4)
        // The first job is the slot's first: in a shell of its own, unless every job is forced warm.
        #expect(records.dropFirst().allSatisfy { $0.contains("\"path\":\"warm\"") })
        let (start, wall) = (try records.map { try number("start", $0) }, try records.map { try number("wall", $0) })
        #expect(wall[1] > 0.01, "the second job took too little to tell: \(wall)")
        // `start` and `wall` are rounded to the millisecond.
        for index in 1..<4 { #expect(start[index] + 0.002 >= start[index - 1] + wall[index - 1], "\(start) \(wall)") }
    }

    @Test func plainJobsRunInTheWarmShellByThemselvesWithTheirOwnStatusAndOutput() {
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "-j2", "--json", scratch.file("j.json"), "--each", "echo {}; [ {} != 3 ]", ":::", "1", "2", "3", "4"],
            environment: [("FUTURERUN_WARM_SHELLS", "")])
        #expect(run.out == "1\n2\n3\n4\n" && run.status == 1, "\(run.err)")
        let json = scratch.read("j.json") ?? ""
        // Each slot's first job in a shell of its own: a warm shell starts with a slot's second.
        #expect(json.ranges(of: "\"path\":\"warm\"").count == 2, "\(json)")
        #expect(json.ranges(of: "\"path\":\"shell\"").count == 2, "\(json)")
        #expect(json.contains("\"number\":3,") && json.ranges(of: "\"exit\":1,").count == 1)
        // A job that needs more than the warm shell's small grammar gets a shell of its own.
        let own = futurerun(
            ["-q", "--json", scratch.file("k.json"), "--each", "echo {} > {}.txt", ":::", "a"],
            environment: [("FUTURERUN_WARM_SHELLS", "")], directory: scratch.path)
        #expect(
            own.status == 0 && scratch.read("a.txt") == "a\n" && (scratch.read("k.json") ?? "").contains("\"path\":\"shell\""))
    }
}
