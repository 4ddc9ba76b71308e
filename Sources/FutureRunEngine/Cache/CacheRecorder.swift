import Dispatch
import FutureCore
import FutureRunModel

/// `--cache`: holds the output of each job that ran as it is printed (the job's own bytes, before
/// any `--tag`), and stores its end once the job is over, if the cache keeps that end
/// (``JobCache/keptStatus(_:)``). A job whose output passes ``outputLimit`` is not stored.
///
/// Used by the printer thread only; the entries are written on a thread of their own, in order, so
/// that a slow disk does not hold up the printing (at most ``pendingLimit`` bytes wait).
package final class CacheRecorder {
    private let cache: JobCache
    private let writer = DispatchQueue(label: "futurerun-cache-writer")
    private let writes = Writes()

    /// What the printer and the writer share.
    private final class Writes: Sendable {
        /// The first error storing an entry.
        let error = Locked<String?>(nil)
        /// Bytes of output handed to the writer and not written yet.
        let pending = Locked(0)

        func failed(_ failure: String?) {
            if let failure { error.withLock { $0 = $0 ?? "--cache: " + failure } }
        }
    }
    private var held: [Int: (stdout: [UInt8], stderr: [UInt8])] = [:]
    /// Jobs whose output passed the limit: what they print is no longer held.
    private var overflowed: Set<Int> = []
    /// The first error storing an entry: the run fails, as for a report.
    package var error: String? { writes.error.withLock { $0 } }
    /// Jobs whose output was too large to keep.
    private var tooLarge = 0

    /// What to say at the end of the run, if some job's end was not stored for its size.
    package var notice: String? {
        guard tooLarge > 0 else { return nil }
        let jobs = tooLarge == 1 ? "a job" : "\(tooLarge) jobs"
        return "--cache: \(jobs) printed more than \(Self.outputLimit >> 20) MiB: shown, not stored; they run again next time"
    }

    /// The most output one job may have to be stored.
    static let outputLimit = 64 << 20
    /// The most bytes of entries waiting for the writer before the printer waits for it.
    static let pendingLimit = 64 << 20

    package init(_ cache: JobCache) { self.cache = cache }

    /// A chunk of `job`'s own output, as it is printed.
    package func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
        guard !overflowed.contains(job.number) else { return }
        // Appended in place: the dictionary's value is not copied.
        if isError {
            held[job.number, default: ([], [])].stderr += bytes
        } else {
            held[job.number, default: ([], [])].stdout += bytes
        }
        if let kept = held[job.number], kept.stdout.count + kept.stderr.count > Self.outputLimit {
            held[job.number] = nil
            overflowed.insert(job.number)
        }
    }

    /// The job is over: its end is stored if it ran (it was no hit) and the cache keeps such ends.
    package func finished(_ outcome: JobOutcome) {
        let output = held.removeValue(forKey: outcome.job.number) ?? ([], [])
        let overflowed = overflowed.remove(outcome.job.number) != nil
        guard let manifest = outcome.cacheMiss, let status = cache.keptStatus(outcome.status) else { return }
        guard !overflowed else {
            tooLarge += 1
            return
        }
        let entry = CacheEntry(
            status: status, stdout: output.stdout, stderr: output.stderr, wall: outcome.result.wallTime.seconds,
            manifest: manifest.text)
        let size = output.stdout.count + output.stderr.count
        if writes.pending.withLock({ $0 }) + size > Self.pendingLimit { writer.sync {} }
        writes.pending.withLock { $0 += size }
        writer.async { [cache, writes, name = outcome.job.name] in
            writes.failed(cache.store.store(entry, key: manifest.key, name: name))
            writes.pending.withLock { $0 -= size }
        }
    }

    /// At the end of the run: blocks until every entry is written, then saves the name index.
    package func close() {
        writer.sync {}
        writes.failed(cache.store.saveNames())
    }
}
