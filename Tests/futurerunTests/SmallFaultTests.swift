import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// The smaller faults: messages and summaries that said something untrue.
@Suite struct SmallFaults {
    @Test func aShortOptionGivenAnOptionSuggestsTheLongFormWithEquals() {
        let run = futurerun(["-C", "-hx", "true"])
        #expect(run.status == 255)
        #expect(run.err.contains("write --workdir=-hx if you mean the value"), "\(run.err)")
    }

    @Test func aRunWhereNoJobRanClaimsNoParallelism() {
        let scratch = Scratch()
        // Two job lines too long to be commands: nothing runs, and the run lasts the delay.
        scratch.write(
            "long.txt",
            "echo " + String(repeating: "x", count: 200_000) + "\necho " + String(repeating: "y", count: 200_000) + "\n")
        let run = futurerun(["--delay", "0.2", "-a", scratch.file("long.txt")])
        #expect(run.status == 2)
        #expect(run.errLines.last?.contains("2 jobs in") == true, "\(run.errLines.last ?? "")")
        #expect(run.errLines.last?.contains("parallel") == false, "\(run.errLines.last ?? "")")
    }

    @Test func dryRunPutsAHeaderCommentWhereAHereDocumentStaysWhole() {
        let run = futurerun(["--dry-run", "@gen cat <<EOF\nbody\nEOF", ":::", "@use after=gen echo used"])
        #expect(run.out == "cat <<EOF  # @gen\nbody\nEOF\necho used  # @use after=gen\n")
        let shell = futurerun(["-q", "--dry-run", "@gen cat <<EOF\nbody\nEOF"], shellSuffix: " | sh")
        #expect(shell.out == "body\n")
    }

    @Test func aStreamedJobWhoseHeaderIsRefusedStillEndsForItsDependants() {
        let run = futurerun(["-j1"], stdin: "@c after=zz echo c\n@d after=c echo d\n@e after-any=c echo e\n")
        #expect(run.out == "e\n", "after-any runs whatever happened to c")
        #expect(run.err.contains("needs c, which could not run"), "\(run.err)")
        #expect(!run.err.contains("@d needs 'c'"), "\(run.err)")
        #expect(run.status == 1)
    }

    @Test func pathsThatAreNoUTF8AreOpenedAsTheBytesGiven() {
        let scratch = Scratch()
        // A directory and report files whose names hold bytes that are no UTF-8.
        let line = """
            d=$(printf 'dir\\377x'); mkdir "$d" && cd "$d" || exit 9
            \(quoted(futurerunPath)) -q -C "$PWD" --joblog "log$(printf '\\300')" 'pwd | od -An -c | tr -d " \\n"' > out
            ls | od -An -c | tr -d ' \\n'
            """
        var command = Command.shell(line)
        command.workingDirectory = scratch.path
        let result = command.run().value
        #expect(result.status == .exited(0))
        #expect(String(decoding: result.stdout.bytes(), as: UTF8.self) == "log300\\nout\\n", "the joblog's name, byte for byte")
        #expect(readDirectoryOutput(scratch).hasSuffix("dir377x\\n"), "-C reached the directory, byte for byte")
        let missing = futurerun(["-a", "no\u{FFFD}file"])
        #expect(missing.err.contains("cannot read 'no\u{FFFD}file'"))
    }
}

/// The `out` file in the one directory of `scratch` (whose name is no UTF-8).
private func readDirectoryOutput(_ scratch: Scratch) -> String {
    let line = "cat \(quoted(scratch.path))/dir*/out"
    return String(decoding: Command.shell(line).run().value.stdout.bytes(), as: UTF8.self)
}
