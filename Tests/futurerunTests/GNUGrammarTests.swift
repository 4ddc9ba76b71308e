import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// GNU parallel's grammar (`--gnu`, or futurerun run as `parallel`): real-world-shaped command
/// lines run by GNU parallel and by futurerun on the same input in the same scratch folder, their
/// stdout, exit status and files compared. Each line is written as typed after `parallel`.
@Suite struct GNUGrammar {
    /// Shell words after `parallel`, and what stdin gives them.
    static let lines: [(String, String)] = [
        // The two commonest shapes: arguments from stdin, and `cmd ::: args`.
        ("echo", "a\nb\nc\n"), ("-k echo", "1\n2\n3\n4\n5\n"), ("-j4 -k echo", "1\n2\n3\n"), ("echo {}", "a b\nc\n"),
        ("'echo x{}y'", "a\n\nb\n"), ("-r 'echo x{}y'", "a\n\nb\n"), ("echo ::: a b c", ""), ("echo {} ::: a b c", ""),
        ("-k echo ::: A B ::: 1 2", ""), ("-k echo {1}-{2} ::: A B ::: 1 2", ""), ("-k echo {2} {1} ::: A B ::: 1 2", ""),
        ("echo {.} ::: dir/a.tar.gz", ""), ("echo {/} {//} {/.} ::: dir/sub/a.b", ""), ("-k echo {#} ::: a b c", ""),
        ("-k 'echo {}; echo {} >&2' ::: a b", ""), ("-k printf '%s\\n' ::: 'a b' c", ""),
        ("-k echo ::: 'a b' \"it's\" '$HOME' '`x`'", ""), ("-k -n2 echo ::: 1 2 3 4 5", ""),
        ("-k -N2 echo {1}+{2} ::: 1 2 3 4", ""),
        ("-k -X echo ::: a b c", ""), ("-k -m echo ::: a b c", ""), ("--xargs -k echo ::: a b c", ""),
        ("-k echo {1} {2} ::: A B C :::+ x y z", ""), ("-k --link echo ::: A B C ::: x y", ""),
        ("-k echo ::: A B C D E :::+ F G", ""), ("-k -E stop echo ::: A B stop C D", ""),
        ("-k --colsep , echo {2} {1}", "a,b\nc,d\n"), ("-k -C , echo {2}", "a,b\nc,d\n"), ("-k -C , echo {2} ::: a,b c,d", ""),
        ("-k --trim lr --colsep , echo '[{1}]'", " a , b \n"), ("-k -0 echo", "a\u{0}b\u{0}"),
        ("-k --null echo", "x y\u{0}z\u{0}"),
        ("-k -d , echo", "a,b,c"), ("-k --delimiter : echo", "a:b"), ("-k -a in echo", ""), ("-k echo :::: in", ""),
        ("-k echo :::: in ::: x", ""), ("-k -I XX echo XX-XX ::: a b", ""), ("-k --plus echo {..} ::: a.tar.gz", ""),
        ("-k --plus echo {%.gz} ::: a.tar.gz b.gz", ""), ("-k --plus echo {#.*} ::: a.tar.gz", ""),
        ("-k --header : echo {f1} {f2} ::: f1 a b ::: f2 1 2", ""), ("-k --tag echo ::: a b", ""),
        ("-k --tagstring '<{}>' echo ::: a b", ""), ("-k --tag --line-buffer 'echo {}' ::: x", ""),
        ("-k --line-buffer echo ::: a b", ""), ("-k -u echo ::: a", ""), ("-k --ungroup echo ::: a", ""),
        ("-k --keep-order echo ::: a b", ""), ("-j1 echo ::: a b c", ""), ("-P2 -k echo ::: a b", ""),
        ("--jobs 2 -k echo ::: a b", ""), ("-j0 -k echo ::: a b", ""), ("-j 100% -k echo ::: a b", ""),
        // Commands as arguments, and job lists on stdin.
        ("-k ::: 'echo 1' 'echo 2'", ""), ("-k", "echo a\necho b\n"), ("-k :::: jobs", ""),
        ("-j2 -k", "echo 1; echo 2\nexit 3\n"),
        // -q quotes the command's words.
        ("-q perl -e 'print \"@ARGV\\n\"' ::: This works", ""), ("-k -q printf '%s|%s\\n' ::: 'a b' c", ""),
        ("-k --quote echo 'a  b' ::: x", ""),
        // Exit status, halting, retries.
        ("'exit {}' ::: 0 0 1", ""), ("'exit {}' ::: 1 2 3", ""), ("false ::: a", ""), ("true ::: a b", ""),
        ("--halt now,fail=1 'sleep {}; exit 1' ::: 0.1 3", ""), ("--halt 2 'sleep {}; exit 1' ::: 0.1 3", ""),
        ("--halt soon,fail=1 -j1 'echo {}; exit 1' ::: a b", ""), ("--halt 1 -j1 'echo {}; exit 1' ::: a b", ""),
        ("--halt 0 -j1 -k 'echo {}; exit 1' ::: a b", ""),
        ("-j2 --halt soon,fail=20% 'sleep {}; exit 1' ::: 0.1 0.2 0.6 0 0 0 0 0 0 0", ""),
        ("--halt now,success=1 -j1 'echo {}' ::: a b", ""),
        ("--retries 2 -k 'echo try; exit 1' ::: a", ""), ("--timeout 0.5 -k 'sleep {}; echo {}' ::: 0.1 2", ""),
        // Shell syntax in the command.
        ("-k 'echo {} | tr a-z A-Z' ::: ab cd", ""), ("-k 'x={}; echo ${#x}' ::: abc de", ""),
        ("-k 'if [ {} = a ]; then echo yes; else echo no; fi' ::: a b", ""), ("-k 'for i in 1 2; do echo {}$i; done' ::: a", ""),
        ("-k \"echo '{}'\" ::: 'a b'", ""), ("-k 'cat <<EOF\n{}\nEOF' ::: hi", ""),
        ("-k 'echo $(( {#} * 2 ))' ::: a b", ""), ("-k 'printf \"%s\\n\" {} > out.{#}; cat out.{#}' ::: a b", ""),
        ("-k 'echo {} > {}.txt' ::: f1 f2", ""), ("-k 'wc -c < {}' ::: in", ""),
        ("-k 'gzip -c {} | wc -c | tr -d \" \"' ::: in", ""),
        ("-k mkdir -p ::: d1 d2/sub", ""), ("-k touch ::: t1 t2", ""), ("-k 'cp {} {}.bak' ::: in", ""),
        // Options accepted for GNU scripts.
        ("--will-cite -k echo ::: a", ""), ("--no-notice -k echo ::: a", ""), ("--gnu -k echo ::: a", ""),
        ("-v -k echo ::: a b", ""), ("--verbose -k echo ::: a", ""), ("--dry-run echo ::: a b", ""),
        ("--dryrun echo {} ::: 'a b'", ""),
        ("-k --nice 5 echo ::: a", ""),
        // --pipe.
        ("-k --pipe wc -l", "1\n2\n3\n"), ("-k --pipe -N1 'paste -sd+'", "1\n2\n3\n"),
        ("-k --pipe -N2 'paste -sd+'", "1\n2\n3\n4\n5\n"),
        ("-k --pipe --block 3 cat", "aa\nbb\ncc\n"), ("-k --pipe --recstart '>' -N1 'head -1'", ">a\nAC\n>b\nGT\n"),
        ("-k --pipe --recend , -N1 cat", "a,b,c,"), ("-k --pipe --header 1 -N1 cat", "h\n1\n2\n"),
        ("-k --pipe-part -a big --block 1k wc -l", ""), ("-k --pipepart -a big --block 20 wc -c", ""),
        ("-k --pipepart -a big --block 7 --recend 0 wc -c", ""), ("-k --pipepart -a in --block 1 cat", ""),
        ("-k --pipe -N3 sort -r", "3\n1\n2\n6\n5\n4\n"),
        // Reports.
        ("-k --joblog jl echo ::: a", ""), ("-k --results res 'echo {}; echo {} >&2' ::: a b", ""),
        ("-k --line-buffered echo ::: a b", ""),
        // {= perl =}: one perl for the run, its variables living on from job to job.
        ("-k echo '{= s/a/b/ =}' ::: abc aa", ""), ("-k echo '{= $_=uc($_) =}' ::: ab", ""),
        ("-k echo '{=s:/:_:g=}' ::: a/b/c", ""), ("-k 'echo {=1 s/a/A/ =} {=2 $_=$job->seq() =}' ::: a b ::: c", ""),
        ("-k echo '{= $_=Q($_) =}' ::: 'a b'", ""), ("-k echo '{= uq(); $_=\"x*\" =}' ::: a", ""),
        ("-k 'echo {= $_ = ++$n =}' ::: a b c", ""), ("-k echo '{= $_ = $arg[2] =}' ::: a b ::: c d", ""),
        ("-k echo '{= s/\\.gz$// =}'", "f.gz\ng.gz\n"), ("-k 'echo {= s/x/y/ =}' ::: 'x; touch PWNED'", ""),
        ("-k 'mv {} {= s/.txt$/.md/ =}' ::: in", ""),
    ]

    private func run(_ program: String, _ line: String, stdin: String, in scratch: Scratch) -> (out: String, status: Int32) {
        // -k for both: GNU parallel prints in completion order without it, futurerun always in input order.
        var command = Command.shell("\(program) -k \(line) 2>/dev/null")
        command.input = .bytes(Array(stdin.utf8))
        command.workingDirectory = scratch.path
        command.environment = [("HOME", scratch.path), ("CI", ""), ("PARALLEL_SHELL", "/bin/sh")]
        command.timeout = .seconds(30)
        let result = command.run().value
        return (String(decoding: result.stdout.bytes(), as: UTF8.self), result.status.shellStatus)
    }

    private func scratchWithInputs() -> Scratch {
        let scratch = Scratch()
        scratch.write("in", "one\ntwo\n")
        scratch.write("jobs", "echo j1\necho j2\n")
        scratch.write("big", (1...40).map(String.init).joined(separator: "\n") + "\n")
        return scratch
    }

    @Test(arguments: lines)
    func aGNULineDoesWhatGNUParallelDoes(line: String, stdin: String) throws {
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let (gnuScratch, ourScratch) = (scratchWithInputs(), scratchWithInputs())
        let gnu = run("parallel", line, stdin: stdin, in: gnuScratch)
        let ours = run("\(quoted(futurerunPath)) --gnu", line, stdin: stdin, in: ourScratch)
        #expect(ours.out == gnu.out, "parallel \(line)")
        #expect(ours.status == gnu.status, "parallel \(line)")
        // The files the jobs made, with what they hold (reports aside: their formats differ).
        let made = { (scratch: Scratch) in
            scratch.entries().filter { !["jl", "res", ".parallel"].contains($0) }.sorted().map {
                "\($0)=\(scratch.read($0) ?? "/")"
            }
        }
        #expect(made(ourScratch) == made(gnuScratch), "parallel \(line)")
        // The newest release (20260522, beside the package in shared/bench) agrees as well.
        if let newest = Self.newestRelease {
            let newer = run("PATH=\(quoted(newest)):$PATH parallel", line, stdin: stdin, in: scratchWithInputs())
            #expect(ours.out == newer.out && ours.status == newer.status, "parallel 20260522 \(line)")
        }
    }

    /// `../shared/bench/gnu-parallel` beside the package, if it is there.
    static let newestRelease: String? = {
        guard let build = futurerunPath.firstRange(of: "/.build/") else { return nil }
        let directory = String(futurerunPath[..<build.lowerBound]) + "/../shared/bench/gnu-parallel"
        return access(directory + "/parallel", X_OK) == 0 ? directory : nil
    }()

    /// `--results` writes GNU's folder tree and its `.csv`, `.tsv` and `.json` tables as GNU
    /// parallel does (the times aside). Values whose folder names the two GNU releases write
    /// differently (`/`, the empty string) are compared with the newest only.
    @Test(arguments: ["res", "out.csv", "out.tsv", "out.json"])
    func resultsAreWrittenInGNUsLayouts(target: String) throws {
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let line = "--results \(target) 'echo {}; echo e{} >&2' ::: a 'b c' 'x\"y' ::: 1 2"
        let tricky = "--results \(target) 'echo {}' ::: 'b/c' 'a+b' '' . .."
        let releases =
            [("parallel", [line])] + (Self.newestRelease.map { [("PATH=\(quoted($0)):$PATH parallel", [line, tricky])] } ?? [])
        for (gnuProgram, lines) in releases {
            for line in lines {
                let (gnuScratch, ourScratch) = (Scratch(), Scratch())
                _ = run(gnuProgram, line, stdin: "", in: gnuScratch)
                _ = run("\(quoted(futurerunPath)) --gnu", line, stdin: "", in: ourScratch)
                #expect(Self.results(in: ourScratch) == Self.results(in: gnuScratch), "\(gnuProgram) \(line)")
            }
        }
    }

    /// Every file below the scratch folder with what it holds, start times and run times left out.
    private static func results(in scratch: Scratch) -> [String] {
        // GNU parallel's own cache (.parallel in HOME, the scratch folder) aside.
        var command = Command.shell(
            "find . -path ./.parallel -prune -o -type f -print | LC_ALL=C sort "
                + "| while read -r f; do printf '%s=' \"$f\"; cat \"$f\"; echo '|'; done")
        command.workingDirectory = scratch.path
        let text = String(decoding: command.run().value.stdout.bytes(), as: UTF8.self)
        return text.replacing(#/[0-9]{10}\.[0-9]{3}([,\t]|, "JobRuntime": )[0-9]+\.[0-9]{3}/#, with: "T").split(separator: "|\n")
            .map(String.init)
    }

    @Test func runUnderTheNameParallelItReadsGNUsGrammar() throws {
        let scratch = Scratch()
        symlink(futurerunPath, scratch.file("parallel"))
        var command = Command.shell("printf 'a\\nb\\n' | ./parallel -k echo x")
        command.workingDirectory = scratch.path
        let result = command.run().value
        #expect(String(decoding: result.stdout.bytes(), as: UTF8.self) == "x a\nx b\n")
    }

    /// Where the grammars' results differ on purpose (the README's table says so).
    @Test func whereFuturerunDiffersOnPurposeItSaysWhatItDoes() {
        // GNU parallel pastes its own quoting inside "...": it prints 'a  b' with the quotes.
        let quoted = futurerun(["--gnu", "-k", "echo \"{}\"", ":::", "a  b"])
        #expect(quoted.out == "a  b\n", "\(quoted.err)")
    }
}
