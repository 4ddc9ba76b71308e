import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Under `make -jN`, futurerun takes its slots from make's jobserver.
@Suite struct Makefiles {
    @Test(.enabled(if: access("/usr/bin/make", X_OK) == 0))
    func makeDashJ2NeverRunsMoreThanTwoJobsAndGetsItsTokensBack() {
        let scratch = Scratch()
        let count = "mkdir \(scratch.path)/d/{}; ls \(scratch.path)/d | wc -l; sleep 0.2; rmdir \(scratch.path)/d/{}"
        let recipe = "+\(futurerunPath) -q -j8 --each '\(count)' 1 2 3 4 5 6 7 8"
        // Two recipes in a row: if the first kept a token, the second would get only one slot.
        scratch.write("Makefile", "all: second\nfirst:\n\t\(recipe)\nsecond: first\n\t\(recipe)\n")
        mkdir(scratch.path + "/d", 0o755)
        let start = ContinuousClock.now
        let run = Command.shell("make -s -j2 -C \(quoted(scratch.path))").run().value
        let counts = String(decoding: run.stdout.bytes(), as: UTF8.self).split(separator: "\n").compactMap {
            Int($0.filter(\.isNumber))
        }
        #expect(run.status == .exited(0))
        #expect(counts.count == 16)
        #expect(counts.allSatisfy { $0 <= 2 }, "\(counts)")
        // Both recipes ran two jobs at once: the first gave its token back to make.
        #expect(counts.prefix(8).contains(2) && counts.suffix(8).contains(2), "\(counts)")
        // 1.6 s of sleeps at two at a time; the bound is only against waiting for a token forever
        // (loose enough for `make tsan`, where each futurerun starts slowly).
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// The progress line says what holds jobs back that `-j` would start.
    @Test(.enabled(if: access("/usr/bin/make", X_OK) == 0))
    func theProgressLineNamesTheJobserverWhenItHoldsJobsBack() {
        let scratch = Scratch()
        let recipe = "+\(futurerunPath) --progress -j4 --each 'sleep 2.{}' 1 2 3 2> \(scratch.file("err"))"
        scratch.write("Makefile", "all:\n\t\(recipe)\n")
        let run = Command.shell("make -s -j2 -C \(quoted(scratch.path))").run().value
        #expect(run.status == .exited(0))
        let err = scratch.read("err") ?? ""
        // Two run at first (one token and make's own slot), the third waits for a token.
        #expect(err.contains("2 running, held back by make's jobserver (1 + 1 token)"), "\(err)")
    }

    @Test func jobserverDescriptorsThatAreNotOpenAreIgnored() {
        let run = futurerun(
            ["-q", "-j4", "echo a", ":::", "echo b"], environment: [("MAKEFLAGS", " -j2 --jobserver-auth=77,78")])
        #expect(run.status == 0)
        #expect(run.out == "a\nb\n")
    }
}

/// `make test` on a machine without the tests' tools: it stops before building, naming them.
@Suite struct TestTools {
    @Test func aMissingToolIsNamedBeforeAnythingIsBuilt() throws {
        let root = String(#filePath.split(separator: "/Tests/").first!)
        try #require(access("/usr/bin/setpriv", X_OK) == 0, "setpriv (util-linux) runs the check as another user")
        // As a user who cannot install, on a machine that has none of the tools.
        var check = Command([
            "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", root + "/scripts/test-tools",
        ])
        check.environment = [("TEST_TOOLS_ROOT", "/nonexistent")]
        let result = check.run().value
        let said = String(decoding: result.stderr.bytes(), as: UTF8.self)
        #expect(result.status == .exited(1))
        #expect(said.split(separator: "\n").count == 1 && said.contains("zsh fish tmux chromium"), "\(said)")
        // On this machine, as the suite runs, everything is there.
        let here = Command([root + "/scripts/test-tools"]).run().value
        #expect(here.status == .exited(0), "\(String(decoding: here.stderr.bytes(), as: UTF8.self))")
    }
}
