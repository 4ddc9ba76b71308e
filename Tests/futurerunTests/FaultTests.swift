import Glibc
import TestSupport
import Testing

/// Signals, readers going away, write errors, and how jobs see the world.
@Suite struct SignalsAndFaults {
    // SIGHUP first drains (GNUFormsTests); a second stops, as these do.
    @Test func aJobsFileReplacedByAFIFOKeepsTheLastWidth() {
        let scratch = Scratch()
        scratch.write("jf", "2\n")
        let run = futurerun(
            ["-q", "-j", "jf", "mv jf jf.old; mkfifo jf", ":::", "sleep 0.3", ":::", "sleep 0.3"], directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.errLines == ["futurerun: -j jf: it is no longer a regular file; the width stays 2"], "\(run.err)")
        let fifo = futurerun(["-j", "jf", "true"], directory: scratch.path)
        #expect(fifo.status == 255 && fifo.err.contains("(not a regular file)"), "\(fifo.err)")
    }

    @Test func aPipePartFileThatShrinksGivesTheJobsWhatIsLeft() {
        let scratch = Scratch()
        scratch.write("f", (1...30000).map(String.init).joined(separator: "\n") + "\n")
        let run = futurerun(
            ["-q", "-j1", "--pipe-part", "-a", "f", "--block", "40k", "if [ {#} = 1 ]; then : > f; fi; wc -c"],
            directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        // Whether job 1 gets its block before its own shell empties the file is a race; no job
        // gets more than its range, and none runs past what is left.
        let counts = run.out.split(separator: "\n").compactMap { Int($0.filter(\.isNumber)) }
        #expect(!counts.isEmpty && counts.allSatisfy { $0 <= 41_000 } && counts.dropFirst(2).allSatisfy { $0 == 0 }, "\(run.out)")
        #expect(run.err.contains("the --pipe-part file shrank while it was read"), "\(run.err)")
    }

    @Test(arguments: [(Int32(SIGINT), Int32(130)), (Int32(SIGTERM), Int32(143))])
    func signalStopsEveryJobAndExitsWithItsStatus(signal: Int32, expected: Int32) {
        let marker = "31.\(signal)\(getpid() % 1000)"
        let run = futurerun(
            ["-j3", "sleep \(marker)", ":::", "sleep \(marker) & sleep \(marker)", ":::", "echo quick"],
            shellPrefix: "( sleep 0.6; kill -\(signal) $$ ) & ")
        #expect(run.status == expected)
        #expect(run.out == "quick\n")
        #expect(run.err.contains("stopped by futurerun"))
        #expect(run.errLines.last?.contains("jobs in") == true || run.errLines.dropLast().last?.contains("jobs in") == true)
        #expect(eventually(2) { !processAlive("sleep \(marker)") })
    }

    @Test func jobsIgnoringTermAreKilledAfterTheGracePeriod() {
        let marker = "32.\(getpid() % 1000)"
        let run = futurerun(["--grace", "300ms", "trap '' TERM; sleep \(marker)"], shellPrefix: "( sleep 0.4; kill -INT $$ ) & ")
        #expect(run.status == 130)
        #expect(run.wall < .seconds(3))
        #expect(eventually(2) { !processAlive("sleep \(marker)") })
    }

    @Test func sigkillOfFuturerunStillStopsItsJobsWithinASecond() {
        let marker = "33.\(getpid() % 1000)"
        let run = futurerun(
            ["-j3", "sleep \(marker)", ":::", "sleep \(marker) & sleep \(marker)", ":::", "trap '' TERM; sleep \(marker)"],
            shellPrefix: "( sleep 0.5; kill -KILL $$ ) & ")
        #expect(run.status == 137)
        #expect(eventually(1.2) { !processAlive("sleep \(marker)") })
    }

    @Test func readerGoingAwayEndsTheRunQuietly() {
        let run = futurerun(["yes", ":::", "sleep 20"], shellSuffix: " | head -1")
        #expect(run.out == "y\n")
        #expect(run.wall < .seconds(5))
        #expect(!run.err.contains("futurerun:"))
        // Its own status, seen through the pipe: 141, as for any program whose reader left.
        let scratch = Scratch()
        _ = futurerun(
            ["yes", ":::", "sleep 20"], shellPrefix: "{ ",
            shellSuffix: "; echo $? > \(quoted(scratch.file("status"))); } | head -1", exec: false)
        #expect(scratch.read("status") == "141\n")
    }

    @Test func writeErrorOnStdoutIsReportedAndFailsTheRun() {
        let run = futurerun(["echo hello"], shellSuffix: " > /dev/full")
        #expect(run.status == 255)
        #expect(run.err.contains("cannot write to stdout: No space left on device"))
    }

    @Test func descriptorsInheritedFromTheCallerReachJobs() {
        let scratch = Scratch()
        let run = futurerun(["-q", "echo via-fd3 >&3"], shellSuffix: " 3> \(quoted(scratch.file("log")))")
        #expect(run.status == 0)
        #expect(scratch.read("log") == "via-fd3\n")
    }

    @Test func jobsSeeTheCallersDescriptorsButNoneOfFuturerunsOwn() {
        // A job, running while other jobs hold pipes, lists what its descriptors point to, and what
        // futurerun's (its parent's, or its warm shell's parent's) point to, split by O_CLOEXEC. None of futurerun's close-on-exec
        // descriptors (other jobs' pipes, pidfds, epoll) may be open in the job; every descriptor
        // futurerun inherited from its caller must be.
        let scratch = Scratch()
        // Descriptors with O_CLOEXEC (the shells' own) are not inherited and do not count.
        scratch.write(
            "list.sh",
            """
            list() {
              for f in /proc/$1/fdinfo/*; do
                fd=${f##*/}
                flags=$(sed -n 's/^flags:[[:space:]]*//p' "$f" 2>/dev/null)
                [ -n "$flags" ] || continue  # closed meanwhile
                case $(printf '%s' "$flags" | rev | cut -c7) in
                  2|3|6|7) echo "private $(readlink /proc/$1/fd/$fd)" ;;
                  *) [ "$fd" -gt 2 ] && echo "inherited $(readlink /proc/$1/fd/$fd)" ;;
                esac
              done
            }
            list $$ > "$1/mine"
            # futurerun: the parent, or the parent's parent when the job ran in a warm shell.
            p=$PPID; [ "$(cat /proc/$p/comm)" = futurerun ] || p=$(cut -d' ' -f4 /proc/$p/stat)
            list $p > "$1/parent"
            """)
        let run = futurerun([
            "-q", "-j3", "sleep 0.3", ":::", "exec sh \(quoted(scratch.file("list.sh"))) \(quoted(scratch.path))", ":::",
            "sleep 0.3",
        ])
        #expect(run.status == 0)
        func entries(_ file: String, _ kind: String) -> Set<String> {
            Set(
                (scratch.read(file) ?? "").split(separator: "\n").filter { $0.hasPrefix(kind + " ") }.map {
                    String($0.dropFirst(kind.count + 1))
                })
        }
        let mine = entries("mine", "inherited")
        let futurerunsOwn = entries("parent", "private").filter { $0.hasPrefix("pipe:") || $0.hasPrefix("anon_inode:") }
        // pidfds, unless the portable exit watcher is forced (its self-pipe is among the pipes).
        let watchesWithPidfd = getenv("FUTURECORE_EXIT_WATCHER").map { String(cString: $0) } != "childSignal"
        #expect(futurerunsOwn.contains { $0.contains("pidfd") } == watchesWithPidfd)
        #expect(futurerunsOwn.contains { $0.contains("eventpoll") })
        #expect(mine.intersection(futurerunsOwn).isEmpty, "leaked: \(mine.intersection(futurerunsOwn))")
        #expect(entries("parent", "inherited").isSubset(of: mine))
    }

    @Test func jobsSeeSignalsAsAChildOfTheCallingShellWould() {
        // futurerun ignores SIGPIPE and blocks INT/TERM/HUP for itself: a job must see neither.
        let run = futurerun(
            ["-q", "yes | head -1; grep -E 'SigBlk|SigIgn' /proc/self/status"],
            shellPrefix: "grep -E 'SigBlk|SigIgn' /proc/self/status >&2; ")
        #expect(run.out == "y\n" + run.err)
        #expect(run.err.hasPrefix("SigBlk:\t0000000000000000\n"))
    }

    @Test func signalsIgnoredByTheCallerStayIgnoredInJobsAsUnderAShell() {
        // The shell that ignores HUP starts with INT and QUIT at their defaults (`withDefaultSignals`).
        let run = futurerun(
            ["-q", "grep SigIgn /proc/self/status"],
            shellPrefix: withDefaultSignals + #"/bin/sh -c "trap '' HUP; grep SigIgn /proc/self/status >&2; exec \"\$@\"" sh "#,
            exec: false)
        #expect(run.out == run.err)
        #expect(run.out.hasSuffix("1\n"))
    }

    @Test func backgroundGrandchildHoldingStdoutDoesNotHangTheRun() {
        let run = futurerun(["-q", "sleep 30 & echo hi"])
        #expect(run.out == "hi\n")
        #expect(run.wall < .seconds(2))
    }
}

@Suite struct Injection {
    @Test(arguments: ["echo {}", "echo \"{}\"", "echo '{}'", "echo \"x{}y\" 'a{}b' {}", "echo $(echo {})", "echo \"$(echo {})\""])
    func substitutedArgumentsAreNeverExecuted(template: String) {
        let scratch = Scratch()
        let hostile = [
            "$(touch PWNED)", "'; touch PWNED; '", "\"; touch PWNED; \"", "`touch PWNED`", "a\ntouch PWNED", "\\'$(touch PWNED)",
        ]
        let run = futurerun(["-q", "--each", template] + hostile, directory: scratch.path)
        #expect(run.status == 0)
        #expect(!scratch.exists("PWNED"), "template \(template) executed an argument")
    }

    @Test func plainAndQuotedContextsGiveTheArgumentBack() {
        let argument = "it's \"$HOME\" `x` \\ ;"
        for template in ["printf '%s\\n' {}", "printf '%s\\n' \"{}\"", "printf '%s\\n' '{}'"] {
            #expect(futurerun(["-q", "--each", template, argument]).out == argument + "\n", "\(template)")
        }
    }
}
