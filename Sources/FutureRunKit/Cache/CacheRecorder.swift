/// `--cache`: holds the output of each job that ran as it is printed (the job's own bytes, before
/// any `--tag`), and stores its end once the job is over, if the cache keeps that end
/// (``JobCache/keptStatus(_:)``). A job whose output passes ``outputLimit`` is not stored.
///
/// Used by the printer thread only.
final class CacheRecorder {
    private let cache: JobCache
    private var held: [Int: (stdout: [UInt8], stderr: [UInt8])] = [:]
    /// Jobs whose output passed the limit: what they print is no longer held.
    private var overflowed: Set<Int> = []
    /// The first error storing an entry: the run fails, as for a report.
    private(set) var error: String?
    /// Jobs whose output was too large to keep.
    private(set) var tooLarge = 0

    /// The most output one job may have to be stored.
    static let outputLimit = 64 << 20

    init(_ cache: JobCache) { self.cache = cache }

    /// A chunk of `job`'s own output, as it is printed.
    func output(_ job: Job, _ bytes: [UInt8], isError: Bool) {
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
    func finished(_ outcome: JobOutcome) {
        let output = held.removeValue(forKey: outcome.job.number) ?? ([], [])
        let overflowed = overflowed.remove(outcome.job.number) != nil
        guard let manifest = outcome.cacheMiss, let status = cache.keptStatus(outcome.status) else { return }
        guard !overflowed else {
            tooLarge += 1
            return
        }
        let entry = CacheEntry(
            status: status, stdout: output.stdout, stderr: output.stderr, wall: outcome.result.wallTime.seconds)
        if let failure = cache.store.store(entry, manifest: manifest, name: outcome.job.name), error == nil {
            error = "--cache: " + failure
        }
    }
}
