import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `--pipe` and `--pipe-part` on the real binary, against GNU parallel on the same input.
@Suite struct PipeBlocks {
    /// A file of records of varied lengths (with `longRecords`, some over a small block), with bytes
    /// that are no UTF-8.
    private static func makeInput(_ scratch: Scratch, longRecords: Bool = false) -> String {
        let path = scratch.file("input")
        let script = """
            import random, sys
            r = random.Random(7)
            out = bytearray()
            for i in range(8000):
                n = r.choice([1, 5, 20, 80, 300, 3000]) if i % 97 or not \(longRecords ? "True" : "False") else 30000
                out += b'>rec%d ' % i + bytes(r.choice(b'abcxyz05\\xff\\xc3 ') for _ in range(n)) + b'\\n'
            open(sys.argv[1], 'wb').write(out)
            """
        _ = Command(["/usr/bin/python3", "-c", script, path]).run().value
        return path
    }

    /// (With both `--recend` and `--recstart`, GNU parallel's cut near a block's end can fall a record
    /// earlier; after a record longer than `--block` it grows `--block` for the rest of the run,
    /// where futurerun makes that one block longer. Neither splits a record.)
    @Test(arguments: [
        ["--block", "64k"], ["--block", "10k", "--recend", "\\n"], ["--block", "20k", "--recstart", ">"], ["-N", "700"],
        ["--block", "50k", "--header", "3"], ["--block", "30k", "--regexp", "--recend", "[05 ]\\n"],
        ["--block", "30k", "--regexp", "--recstart", ">rec[0-9]*0 "],
    ])
    func blocksAreCutWhereGNUParallelCutsThem(options: [String]) throws {
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let scratch = Scratch()
        let input = Self.makeInput(scratch)
        let counting = "wc -c"
        let ours = futurerun(["-q", "--pipe"] + options + [counting], shellPrefix: "exec < \(quoted(input)); ")
        #expect(ours.status == 0, "\(ours.err)")
        let gnu = Command.shell(
            "parallel -k --pipe " + options.map(quoted).joined(separator: " ") + " \(quoted(counting)) < \(quoted(input))"
        ).run().value
        #expect(ours.out == String(decoding: gnu.stdout.bytes(), as: UTF8.self))
        #expect(ours.out.split(separator: "\n").count > 3, "several blocks: \(ours.out)")
        // Concatenated, the blocks are the input, byte for byte (the header once per block).
        if !options.contains("--header") {
            let whole = futurerun(["-q", "--pipe"] + options + ["cat"], shellPrefix: "exec < \(quoted(input)); ")
            #expect(whole.stdout == scratch.readBytes("input"))
        }
    }

    /// (GNU parallel grows `--block` for the rest of the run after a record longer than it;
    /// futurerun makes that one block longer. Compared with GNU parallel on shorter records above.)
    @Test func noRecordIsSplitAndPipePartCutsAsPipeDoes() throws {
        let scratch = Scratch()
        let input = Self.makeInput(scratch, longRecords: true)
        // Each block's first and last bytes: a record starts it, a newline ends it.
        let edges = "head -c 4; echo; tail -c 1 | od -An -tx1"
        for options in [["--block", "64k"], ["--block", "7k", "--recstart", ">"], ["--block", "1M"]] {
            let stream = futurerun(["-q", "--pipe"] + options + [edges], shellPrefix: "exec < \(quoted(input)); ")
            let parts = futurerun(["-q", "--pipe-part", "-a", input] + options + [edges])
            #expect(stream.status == 0 && parts.status == 0, "\(stream.err) \(parts.err)")
            let lines = stream.out.split(separator: "\n")
            #expect(lines.count >= 2)
            for pair in stride(from: 0, to: lines.count - 1, by: 2) {
                #expect(lines[pair] == ">rec" && lines[pair + 1] == " 0a", "\(lines[pair]) \(lines[pair + 1])")
            }
            #expect(parts.out == stream.out, "--pipe-part cuts where --pipe does (\(options))")
            let whole = futurerun(["-q", "--pipe-part", "-a", input] + options + ["cat"])
            #expect(whole.stdout == scratch.readBytes("input"))
        }
    }

    @Test func anEmptyInputRunsNoJob() {
        let scratch = Scratch()
        scratch.write("empty", "")
        for arguments in [["--pipe", "touch ran"], ["--pipe-part", "-a", "empty", "touch ran"]] {
            let run = futurerun(["-q"] + arguments, stdin: "", directory: scratch.path)
            #expect(run.status == 0 && run.out.isEmpty, "\(run.err)")
            #expect(scratch.read("ran") == nil, "\(arguments)")
        }
    }

    @Test func aFailedJobIsRetriedWithTheSameBlock() throws {
        let scratch = Scratch()
        // Each attempt keeps its block; the first attempt of block 2 fails after reading it.
        let job = "cat > block.{#}.$FUTURERUN_SLOT.$$; n=$(ls block.{#}.* | wc -l); [ {#} != 2 ] || [ $n -ge 2 ]"
        let run = futurerun(
            ["-q", "--retries", "2", "--pipe", "-N", "2", job], stdin: "a\nb\nc\nd\ne\n", directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        let listing = Command.shell("cd \(quoted(scratch.path)) && for f in block.2.*; do cat $f; echo =; done").run().value
        #expect(String(decoding: listing.stdout.bytes(), as: UTF8.self) == "c\nd\n=\nc\nd\n=\n")
    }

    @Test func aJobThatReadsNoneOfItsBlockEndsAsItsStatusSays() {
        let run = futurerun(
            ["--pipe", "--block", "1M", "exit 3"], shellPrefix: "head -c 5000000 /dev/zero | tr '\\0' 'a' | fold -w 99 | ")
        #expect(run.status == 5, "five blocks, five failures: \(run.err)")
        #expect(run.errLines.filter { $0.contains("exit 3") }.count == 5)
    }

    @Test func sigintMidStreamStopsEveryJobAndLeavesNothing() throws {
        let scratch = Scratch()
        let marker = "7.\(getpid() % 1000)3"
        // An endless input, jobs that take their block and sleep: INT once two have started.
        let run = futurerun(
            ["-q", "-j2", "--pipe", "--block", "10k", "cat > /dev/null; touch started.{#}; sleep \(marker)"],
            shellPrefix: """
                ( i=0; while [ $(ls \(quoted(scratch.path)) | wc -l) -lt 2 ] && [ $i -lt 500 ]; do sleep 0.02; \
                i=$((i+1)); done; pkill -INT -f '^\(futurerunPath) -q -j2 --pipe' ) & yes | 
                """, directory: scratch.path, exec: false)
        #expect(run.status == 130, "\(run.err)")
        #expect(!processAlive("sleep \(marker)"), "no job is left behind")
    }

    @Test func badPipeUsageIsRefusedBeforeAnythingRuns() {
        for (arguments, message) in [
            (["--pipe"], "a command to give each block to"),
            (["--pipe", "--each", "echo {}", "x"], "--each"),
            (["--pipe-part", "wc"], "-a FILE"),
            (["--block", "1M", "wc"], "works only with --pipe"),
            (["--pipe", "echo {}"], "without {} or {N}"),
            (["--pipe", "--regexp", "--recend", "(", "wc"], "a regular expression"),
            (["--pipe-part", "-a", "/dev/stdin", "-N", "2", "wc"], "-N"),
        ] {
            let run = futurerun(arguments, stdin: "x\n")
            #expect(run.status == 255 && run.errLines.count == 1, "\(arguments): \(run.err)")
            #expect(run.err.contains(message), "\(arguments): \(run.err)")
        }
    }
}
