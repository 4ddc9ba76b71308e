import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// Nothing lost when the spill disk fills: held jobs wait instead (issue "spill disk").
@Suite(.serialized) struct SpillSpace {
    private let twoBig = [
        "sleep 2; echo first", ":::", "head -c 40000000 /dev/zero | tr '\\0' X; echo end2", ":::",
        "head -c 40000000 /dev/zero | tr '\\0' X; echo end3",
    ]

    @Test(.enabled(if: canMountTinyDisk, "cannot mount a tmpfs here (needs root)"))
    func heldJobsWaitForSpaceAndEveryByteArrivesInOrder() throws {
        let disk = try #require(TinyDisk(megabytes: 50))
        let scratch = Scratch()
        // Jobs of their own: a warm shell's job does not yet wait for spill space (its held output
        // waits in memory; README, "warm shell"), and its pipeline would run in one.
        let run = futurerun(
            ["-q", "-j0"] + twoBig, environment: [("TMPDIR", disk.path), ("FUTURERUN_WARM_SHELLS", "off")],
            shellPrefix: "/usr/bin/time -f %M -o \(quoted(scratch.file("rss"))) ", exec: false)
        #expect(run.status == 0, "\(run.err)")
        let out = run.stdout
        let size = 40_000_000
        #expect(out.count == 6 + 2 * (size + 5))
        try #require(out.count == 6 + 2 * (size + 5))
        #expect(out[0..<6].elementsEqual(Array("first\n".utf8)))
        #expect(out[(6 + size)..<(6 + size + 5)].elementsEqual(Array("end2\n".utf8)), "job 2 whole, then its end")
        #expect(out[(out.count - 5)...].elementsEqual(Array("end3\n".utf8)))
        #expect(!out[6..<(6 + size)].contains(0) && out[(6 + size + 5)..<(out.count - 5)].allSatisfy { $0 == UInt8(ascii: "X") })
        #expect(run.err.contains("futurerun: jobs wait for spill space in \(disk.path) (No space left on device)"), "\(run.err)")
        let kib = Int(scratch.read("rss")?.filter(\.isNumber) ?? "") ?? .max
        #expect(kib < 64 * 1024, "futurerun's peak memory: \(kib) KiB")
    }

    @Test(.enabled(if: canMountTinyDisk, "cannot mount a tmpfs here (needs root)"))
    func whenSpaceNeverComesBackTheRunSaysWhyInsteadOfHanging() throws {
        // --quiet-success holds the oldest job's output until it ends; 60 MB cannot be held in 20.
        let disk = try #require(TinyDisk(megabytes: 20))
        let run = futurerun(["--quiet-success", "head -c 60000000 /dev/zero"], environment: [("TMPDIR", disk.path)])
        #expect(run.status == 255)
        #expect(run.err.contains("job 1 (head -c 60000000 /dev/zero) cannot go on"), "\(run.err)")
        #expect(run.err.contains("has no space left for it"))
        #expect(run.wall < .seconds(60), "against a hang only")
    }

    @Test(.enabled(if: canMountTinyDisk, "cannot mount a tmpfs here (needs root)"))
    func aSpillErrorThatIsNotAboutSpaceIsAClearError() throws {
        let disk = try #require(TinyDisk(megabytes: 10, readOnly: true))
        let run = futurerun(["-q", "-j2", "sleep 0.5", ":::", "head -c 2000000 /dev/zero"], environment: [("TMPDIR", disk.path)])
        #expect(run.status == 255)
        #expect(run.err.contains("bytes of its stdout were lost"), "\(run.err)")
        #expect(run.err.contains("Read-only file system"))
    }
}
