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

    @Test func jobserverDescriptorsThatAreNotOpenAreIgnored() {
        let run = futurerun(
            ["-q", "-j4", "echo a", ":::", "echo b"], environment: [("MAKEFLAGS", " -j2 --jobserver-auth=77,78")])
        #expect(run.status == 0)
        #expect(run.out == "a\nb\n")
    }
}
