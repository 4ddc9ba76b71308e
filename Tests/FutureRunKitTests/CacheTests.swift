import FutureProcess
import TestSupport
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// The cache's pure parts: its hash against the standard's vectors, its entries' format and what
/// makes one untrusted, its manifests and what `--explain` says of them.
@Suite struct CacheValues {
    /// FIPS 180-4's examples (NIST's SHA256.pdf) and the long-message vector.
    @Test func sha256MatchesTheStandardsTestVectors() {
        #expect(SHA256.digest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.digest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var million = SHA256()
        // Fed in uneven pieces: buffering across the 64-byte blocks must not matter.
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let count = min(piece, left)
            million.update([UInt8](repeating: 0x61, count: count))
            left -= count
            piece = piece % 131 + 7
        }
        #expect(million.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // 55, 56 and 64 bytes: the padding's edge cases.
        #expect(
            SHA256.digest([UInt8](repeating: 0x61, count: 55))
                == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(
            SHA256.digest([UInt8](repeating: 0x61, count: 56))
                == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(
            SHA256.digest([UInt8](repeating: 0x61, count: 64))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test func anEntryReadsBackWholeAndIsRefusedCutShortChangedOrForAnotherKey() {
        let entry = CacheEntry(
            status: .exited(3), stdout: Array("out\n\nmore".utf8), stderr: Array("err\n".utf8), wall: 1.5,
            manifest: "futurerun-cache-manifest 1\ncommand x\n")
        let bytes = entry.encoded(key: "k1")
        #expect(CacheEntry(decoding: bytes, key: "k1") == entry)
        #expect(CacheEntry(decoding: bytes, key: "k2") == nil, "another key's entry")
        for cut in [0, 1, 10, bytes.count / 2, bytes.count - 1] {
            #expect(CacheEntry(decoding: Array(bytes.prefix(cut)), key: "k1") == nil, "cut at \(cut)")
        }
        var flipped = bytes
        flipped[flipped.count / 2] ^= 1
        #expect(CacheEntry(decoding: flipped, key: "k1") == nil, "a changed byte")
        let signaled = CacheEntry(status: .signaled(9), stdout: [], stderr: [], wall: 0)
        #expect(CacheEntry(decoding: signaled.encoded(key: "k"), key: "k") == signaled)
    }

    private func manifest(
        command: String = "gzip a", variables: [(String, String?)] = [("CC", "d1")],
        inputs: [CacheManifest.Input] = [.file(path: "a", digest: "x")]
    ) -> CacheManifest {
        CacheManifest(
            command: Array(command.utf8), shell: "/bin/sh", directory: "/w\nx", variables: variables.map { ($0.0, $0.1) },
            inputs: inputs)
    }

    @Test func aManifestReadsBackAndItsKeyCoversEveryPart() {
        let base = manifest(inputs: [.file(path: "dir/a b%\t", digest: "x"), .unmatched(pattern: "*.c"), .unreadable(path: "d")])
        #expect(CacheManifest(text: base.text) == base)
        #expect(CacheManifest(text: "nonsense\n") == nil)
        let keys = [
            base, manifest(command: "gzip b"), manifest(variables: [("CC", nil)]), manifest(variables: []),
            manifest(inputs: [.file(path: "a", digest: "y")]), manifest(inputs: []),
        ].map(\.key)
        #expect(Set(keys).count == keys.count, "each part changes the key")
    }

    @Test func explainSaysWhatChanged() {
        let old = manifest(inputs: [.file(path: "a", digest: "x"), .file(path: "b", digest: "x")])
        #expect(old.changes(since: old).isEmpty)
        let new = manifest(
            command: "gzip -9 a", variables: [("CC", "d2")],
            inputs: [.file(path: "a", digest: "y"), .file(path: "c", digest: "x")])
        #expect(
            new.changes(since: old) == [
                "the command text changed", "$CC changed", "input a changed", "input b is gone", "input c is new",
            ])
        let appeared = manifest(inputs: [.file(path: "x.c", digest: "1")])
        #expect(appeared.changes(since: manifest(inputs: [.unmatched(pattern: "*.c")])) == ["input x.c is new"])
    }

    @Test func onlySuccessesAreKeptUnlessFailuresAreAskedFor() throws {
        let folder = Scratch()
        let scratch = folder.path
        let plain = try JobCache(.init(directory: scratch), shell: "/bin/sh", directory: "/")
        #expect(plain.keptStatus(.succeeded) == .exited(0))
        #expect(plain.keptStatus(.failed(.exited(2))) == nil)
        var settings = JobCache.Settings(directory: scratch)
        settings.failures = true
        let failures = try JobCache(settings, shell: "/bin/sh", directory: "/")
        #expect(failures.keptStatus(.failed(.exited(2))) == .exited(2))
        #expect(failures.keptStatus(.failed(.signaled(9))) == .signaled(9))
        #expect(failures.keptStatus(.failed(.timedOut)) == nil)
        #expect(failures.keptStatus(.stopped) == nil)
    }
}
