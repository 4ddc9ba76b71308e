import FutureCore
import FutureProcess
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Job headers, the name rules and the graph's decisions, as values.
@Suite struct JobHeaders {
    private func split(_ line: String) -> Result<(header: JobHeader?, command: [UInt8]), JobHeader.Problem> {
        JobHeader.split(Array(line.utf8))
    }

    @Test func aHeaderNamesTheJobAndWhatItWaitsFor() throws {
        let (header, command) = try split("@pkg   after=build,lint after-any=docs  ./package.sh --all").get()
        #expect(header == JobHeader(name: "pkg", after: ["build", "lint"], afterAny: ["docs"]))
        #expect(command == Array("./package.sh --all".utf8))
        #expect(header?.text == "@pkg after=build,lint after-any=docs")
    }

    @Test func aLineWithoutAHeaderIsNeverRewritten() throws {
        for line in ["make test", "  echo @x after=y", "echo a@b", "after=x make"] {
            let (header, command) = try split(line).get()
            #expect(header == nil)
            #expect(command == Array(line.utf8))
        }
    }

    @Test func badHeadersSayWhatIsWrong() {
        #expect(throws: JobHeader.Problem.badName("a b")) { try JobHeader.parse([Array("@a b".utf8)[...]]).get() }
        #expect(throws: JobHeader.Problem.badName("x/y")) { try split("@x/y make").get() }
        #expect(throws: JobHeader.Problem.emptyList("after")) { try split("@x after= make").get() }
        #expect(throws: JobHeader.Problem.badName("")) { try split("@x after=a,,b make").get() }
        #expect(throws: JobHeader.Problem.repeated("after")) { try split("@x after=a after=b make").get() }
        #expect(throws: JobHeader.Problem.noCommand("x")) { try split("@x after=a").get() }
        #expect(throws: JobHeader.Problem.badName("")) { try split("@ make").get() }
    }

    @Test func namesAreCheckedAgainstTheWholeListWhenItIsKnown() {
        let gen = JobHeader(name: "gen")
        let build = JobHeader(name: "build", after: ["gen"])
        #expect(JobNames.check([gen, nil, build]) == nil)
        #expect(JobNames.check([build, gen])?.contains("which comes after it") == true)
        #expect(JobNames.check([gen, JobHeader(name: "gen")])?.contains("is the name of two jobs") == true)
        #expect(JobNames.check([JobHeader(name: "x", after: ["nope"])])?.contains("no job has that name") == true)
        #expect(JobNames.check([JobHeader(name: "x", afterAny: ["x"])]) == "@x waits for itself")
    }

    @Test func streamedNamesAreAdmittedOneByOne() {
        var names = JobNames()
        #expect(names.admit(JobHeader(name: "gen")) == nil)
        #expect(names.admit(JobHeader(name: "build", after: ["gen"])) == nil)
        #expect(names.admit(JobHeader(name: "gen"))?.message.contains("another job before it has that name") == true)
        #expect(names.admit(JobHeader(name: "pkg", after: ["later"]))?.message.contains("which no earlier job is named") == true)
    }

    @Test func theGraphRunsSkipsOrStops() {
        let pkg = JobHeader(name: "pkg", after: ["build"], afterAny: ["docs"])
        typealias Ending = DependencyGraph.Ending
        #expect(
            DependencyGraph.decide(
                pkg, [Ending(name: "build", status: .succeeded), Ending(name: "docs", status: .failed(.exited(1)))]) == .run)
        #expect(
            DependencyGraph.decide(
                pkg, [Ending(name: "build", status: .failed(.exited(2))), Ending(name: "docs", status: .succeeded)])
                == .skip(SkipReason(prerequisite: "build", ending: .failed(.exited(2)))))
        #expect(
            DependencyGraph.decide(
                pkg, [Ending(name: "build", status: .failed(.timedOut)), Ending(name: "docs", status: .succeeded)])
                == .skip(SkipReason(prerequisite: "build", ending: .timedOut)))
        #expect(
            DependencyGraph.decide(
                pkg,
                [
                    Ending(name: "build", status: .skipped(SkipReason(prerequisite: "x", ending: .skipped))),
                    Ending(name: "docs", status: .succeeded),
                ])
                == .skip(SkipReason(prerequisite: "build", ending: .skipped)))
        #expect(
            DependencyGraph.decide(
                pkg,
                [
                    Ending(name: "build", status: .succeeded),
                    Ending(name: "docs", status: .skipped(SkipReason(prerequisite: "x", ending: .skipped))),
                ])
                == .run,
            "after-any: an ended job, however it ended")
        #expect(
            DependencyGraph.decide(pkg, [Ending(name: "build", status: .succeeded), Ending(name: "docs", status: .notStarted)])
                == .notStarted,
            "a stopping run starts nothing more")
    }
}
