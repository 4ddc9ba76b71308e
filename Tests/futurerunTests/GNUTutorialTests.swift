import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `man parallel_tutorial`'s examples, as written, run by GNU parallel and by futurerun under the
/// name `parallel` in the same prepared folder: each gives the same stdout (in any order, as the
/// tutorial says) and exit status, or futurerun refuses it at the start, naming what it does not do.
@Suite struct GNUTutorial {
    /// The tutorial's example blocks (the shell lines of each `.Vb` block that runs `parallel`),
    /// read from the installed man page.
    static let examples: [String] = {
        let page = Command.shell("zcat /usr/share/man/man7/parallel_tutorial.7.gz 2>/dev/null").run().value
        var blocks: [[String]] = []
        var block: [String]?
        for line in String(decoding: page.stdout.bytes(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix(".Vb") {
                block = []
            } else if line.hasPrefix(".Ve") {
                if let done = block { blocks.append(done) }
                block = nil
            } else if block != nil {
                block!.append(unescaped(line))
            }
        }
        let runsParallel = { (line: String) in line.hasPrefix("parallel ") || line.contains("| parallel ") }
        return blocks.filter { lines in lines.contains(where: runsParallel) && !lines.contains { $0.hasPrefix("parallel:") } }
            .map { $0.joined(separator: "\n") }
    }()

    /// A verbatim line of the page as the shell reads it (pod2man's escapes undone).
    private static func unescaped(_ line: Substring) -> String {
        var text = String(line)
        for (escape, character) in [
            ("\\&", ""), ("\\-", "-"), ("\\*(L\"", "\""), ("\\*(R\"", "\""), ("\\*(C'", "'"), ("\\*(C`", "`"),
            ("\\(aq", "'"), ("\\*(Aq", "'"), ("\\|", ""), ("\\`", "`"), ("\\e", "\\"),
        ] {
            text = text.replacing(escape, with: character)
        }
        return text.hasPrefix("  ") ? String(text.dropFirst(2)) : text
    }

    /// What an example needs that a test cannot have: other hosts, a database, a terminal, a
    /// profile, a display (zenity), files of the reader's; or what only prints about GNU parallel
    /// itself.
    private static let needsMore = [
        "SERVER", "--sql", "-S ", "--tmux", "--tty", "--interactive", "emacs", "vi ", "--sshlogin", "nodefile",
        "--version", "--help", "--minversion", "--number-of", "--max-line-length", "--profile", "--record-env",
        "--env _", "--shellquote", "[options]", "input_file", "--retry-failed", "command ::: ", "--semaphore", "sem ",
        "show_signals", "--termseq", "zenity",
    ]

    /// Examples whose output differs with the moment, not with the tool: file names made at run
    /// time, clock times, how `--ungroup`'s jobs interleave, which slot a job that starts as
    /// another ends gets, how soon a halt stops a job that was about to start; and `--xargs`'s
    /// packing (GNU parallel's line limit is its own).
    private static let differsByRunOnly = [
        "--files", "--ungroup", "date", "{%}", "--halt soon", "--halt now", "-vv", "--xargs", "-m echo",
    ]

    /// The tutorial's files, made as it says.
    private static let setup = """
        parallel -k echo ::: A B C > abc-file; parallel -k echo ::: D E F > def-file
        perl -e 'printf "A\\0B\\0C\\0"' > abc0-file; perl -e 'printf "A_B_C_"' > abc_-file
        perl -e 'printf "f1\\tf2\\nA\\tB\\nC\\tD\\n"' > tsv-file.tsv
        perl -e 'for(1..8){print "$_\\n"}' > num8; perl -e 'for(1..128){print "$_\\n"}' > num128
        perl -e 'for(1..30000){print "$_\\n"}' > num30000; perl -e 'for(1..1000000){print "$_\\n"}' > num1000000
        (echo %head1; echo %head2; perl -e 'for(1..10){print "$_\\n"}') > num_%header
        perl -e 'print "HHHHAAABBBCCC"' > fixedlen

        """

    /// Runs `example` with `parallel` from `directory` first in PATH: its status, sorted stdout
    /// lines (the folder's path made `DIR`, times `T`), and stderr.
    private func run(_ example: String, parallelIn directory: String) -> (status: Int32, lines: [String], err: String) {
        let scratch = Scratch()
        // The examples' files in /tmp are the folder's own, so that runs side by side are apart.
        let isolated = example.replacing("/tmp/", with: "./")
        var command = Command(["/bin/bash", "-c", Self.setup + "PATH=\(quoted(directory)):$PATH\n" + isolated])
        command.workingDirectory = scratch.path
        command.environment = [("HOME", scratch.path), ("PARALLEL_SHELL", "/bin/bash"), ("CI", "")]
        command.timeout = .seconds(90)
        let result = command.run().value
        // Joblog lines hold start and run times: only those may differ.
        let out = String(decoding: result.stdout.bytes(), as: UTF8.self).replacing(scratch.path, with: "DIR")
            .replacing(#/[0-9]{10}\.[0-9]{3}\s+[0-9]+\.[0-9]{3}/#, with: "T")
        let lines = out.split(separator: "\n").map(String.init).sorted()
        return (result.status.shellStatus, lines, String(decoding: result.stderr.bytes(), as: UTF8.self))
    }

    /// The tutorial takes a minute and a half: it runs once, on the release binary (`make test`'s
    /// second pass, the binary that ships); the grammar does not depend on the build or on how
    /// the engine watches exits.
    static let runsInThisPass =
        getenv("FUTURERUN_BINARY") != nil && getenv("FUTURECORE_EXIT_WATCHER") == nil

    @Test(
        .enabled(if: runsInThisPass, "run by make test's release pass only (FUTURERUN_BINARY set, default exit watcher)"),
        arguments: examples.filter { example in !needsMore.contains(where: example.contains) })
    func aTutorialExampleDoesWhatGNUParallelDoesOrIsRefused(example: String) throws {
        try #require(access("/usr/bin/parallel", X_OK) == 0, "GNU parallel is needed to compare with (.ci/run installs it)")
        let ours = Scratch()
        symlink(futurerunPath, ours.file("parallel"))
        let mine = run(example, parallelIn: ours.path)
        if mine.status == 255, mine.err.contains("futurerun:") { return }  // refused, saying why
        let gnu = run(example, parallelIn: "/usr/bin")
        if example.contains("skip()") {
            // GNU parallel 20221122 exits 1 after skip(), 20260522 exits 0 (as futurerun does).
            #expect(mine.lines == gnu.lines, "\(example)\n\(mine.err)")
        } else if Self.differsByRunOnly.contains(where: example.contains) {
            // Which of two jobs failing at once halts the run is a race too: both fail.
            #expect((mine.status == 0) == (gnu.status == 0), "\(example)\n\(mine.err)")
        } else {
            #expect(mine.status == gnu.status && mine.lines == gnu.lines, "\(example)\n\(mine.err)")
        }
    }

    @Test func theTutorialIsThereToBeRead() {
        #expect(Self.examples.count > 150, "man parallel_tutorial read: \(Self.examples.count) examples")
    }
}
