import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// A 1 MiB tmpfs, for full-disk cases (root only; `nil` where mounting is not allowed).

/// Peak resident memory of the run, from GNU time (`nil` without it).
func peakKiB(_ shellCommand: String) -> (kib: Int, stdout: [UInt8])? {
    guard access("/usr/bin/time", X_OK) == 0 else { return nil }
    let scratch = Scratch()
    let result = Command.shell("/usr/bin/time -f %M -o \(quoted(scratch.file("t"))) sh -c \(quoted(shellCommand))").run().value
    guard let text = scratch.read("t"), let kib = Int(text.split(separator: "\n").last ?? "") else { return nil }
    return (kib, result.stdout.bytes())
}

@Suite struct Soak {
    @Test(
        .enabled(if: access("/usr/bin/time", X_OK) == 0),
        .disabled(if: isThreadSanitized, "the thread sanitizer's shadow memory multiplies resident size"))
    func gigabyteOfOutputWithAHugeLineIsByteForByteInBoundedMemory() throws {
        // 1 GiB in all; one job writes a 256 MiB line with no newline. futurerun stays under 64 MiB.
        let jobs = [
            "head -c 268435456 /dev/zero | tr '\\\\0' x", "head -c 268435456 /dev/urandom | od -An | head -c 268435456",
            "head -c 268435456 /dev/zero", "yes abcdefgh | head -c 268435456",
        ]
        let command = quoted(futurerunPath) + " -q -j4 " + jobs.map(quoted).joined(separator: " ::: ") + " | cksum"
        let measured = try #require(peakKiB(command))
        #expect(measured.kib < 64 * 1024, "peak \(measured.kib) KiB")
        let parts = String(decoding: measured.stdout, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        #expect(parts.count >= 2 && parts[1] == "1073741824")
    }

    @Test(.enabled(if: access("/usr/bin/time", X_OK) == 0))
    func twentyThousandJobsUseNoMoreMemoryThanAThousandAndLeakNothing() throws {
        let scratch = Scratch()
        // The last job looks at futurerun itself: its descriptors and zombie children.
        let probe = "ls /proc/$PPID/fd | wc -l; ps -o stat= --ppid $PPID | grep -c Z\n"
        scratch.write("small", (1...1000).map { "true \($0)\n" }.joined() + "sleep 0.2; " + probe)
        scratch.write("big", (1...20000).map { "true \($0)\n" }.joined() + "sleep 0.2; " + probe)
        let small = try #require(peakKiB("\(quoted(futurerunPath)) -q -j2 < \(quoted(scratch.file("small")))"))
        let big = try #require(peakKiB("\(quoted(futurerunPath)) -q -j2 < \(quoted(scratch.file("big")))"))
        #expect(Double(big.kib) < Double(small.kib) * 1.2, "1,000 jobs: \(small.kib) KiB, 20,000: \(big.kib) KiB")
        let after1000 = String(decoding: small.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        let after20000 = String(decoding: big.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(after20000.count == 2)
        #expect(after20000 == after1000, "descriptors and zombies after 1,000 jobs \(after1000), after 20,000 \(after20000)")
        #expect(after20000.last == 0)
    }
}

@Suite struct FullDisks {
    @Test(.enabled(if: canMountTinyDisk, "cannot mount a tmpfs here (needs root)"))
    func aFullSpillDirectoryMakesTheJobWaitNeverTruncates() throws {
        let disk = try #require(TinyDisk())
        let run = futurerun(["sleep 0.3", ":::", "head -c 5000000 /dev/zero"], environment: [("TMPDIR", disk.path)])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.stdout.count == 5_000_000)
        #expect(run.err.contains("jobs wait for spill space"))
    }

    @Test(.enabled(if: canMountTinyDisk, "cannot mount a tmpfs here (needs root)"))
    func fullResultsDirectoryIsAnError() throws {
        let disk = try #require(TinyDisk())
        let run = futurerun(["-q", "--results", disk.path + "/out", "head -c 3000000 /dev/zero"], shellSuffix: " > /dev/null")
        #expect(run.status == 255)
        #expect(run.err.contains("No space left on device"))
    }
}

@Suite struct Privacy {
    @Test func hostileTmpdirPathStillWorksAndIsLeftEmpty() {
        let scratch = Scratch()
        let hostile = scratch.path + "/it's a \"dir\"\nwith newline $(x)"
        mkdir(hostile, 0o700)
        let run = futurerun(
            ["-q", "sleep 0.2; echo first", ":::", "head -c 2000000 /dev/zero | wc -c"], environment: [("TMPDIR", hostile)])
        #expect(run.status == 0)
        #expect(run.out == "first\n2000000\n")
        #expect(Command.shell("ls -A \(quoted(hostile)) | wc -l").run().value.stdout.bytes() == Array("0\n".utf8))
    }

    @Test func interruptedRunLeavesNoTemporaryFile() {
        let scratch = Scratch()
        let run = futurerun(
            ["sleep 10", ":::", "head -c 3000000 /dev/zero; sleep 10"], environment: [("TMPDIR", scratch.path)],
            shellPrefix: "( sleep 0.7; kill -INT $$ ) & ")
        #expect(run.status == 130)
        #expect(Command.shell("ls -A \(quoted(scratch.path)) | wc -l").run().value.stdout.bytes() == Array("0\n".utf8))
    }

    @Test func jobsSeeTheCallersEnvironmentPlusOnlyFuturerunsOwnNames() {
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "env | sort > \(quoted(scratch.file("job")))"],
            shellPrefix: "env | sort > \(quoted(scratch.file("caller"))); ")
        #expect(run.status == 0)
        let ignored: Set<String> = ["PWD", "_", "SHLVL", "OLDPWD"]
        func names(_ file: String) -> Set<String> {
            Set((scratch.read(file) ?? "").split(separator: "\n").compactMap { $0.split(separator: "=").first.map(String.init) })
                .subtracting(ignored)
        }
        #expect(names("job").subtracting(names("caller")) == ["FUTURERUN_JOB", "FUTURERUN_SLOT", "FUTURERUN_NAME"])
        #expect(names("caller").isSubset(of: names("job")))
    }
}
