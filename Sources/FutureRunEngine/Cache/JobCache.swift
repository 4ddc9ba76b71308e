import FutureProcess
import FutureRunModel
import Glibc

/// `--cache DIR` for one run: makes each job's ``CacheManifest`` (reading the files
/// `--cache-input` names), looks its key up in the ``CacheStore``, and says which ends are kept.
/// The key is made from the command line as the job's first slot would run it (`{%}` counts as 1).
///
/// ``lookup(_:)`` blocks on the files it hashes: the scheduler calls it on its own thread (or, for
/// a job that waited for others, on a thread of the global queue), never on the engine's.
package final class JobCache: Sendable {
    /// What the options ask of the cache.
    package struct Settings: Sendable {
        package var directory: String
        /// `--cache-env`: the variables whose values the key covers.
        package var variables: [String] = []
        /// `--cache-input`: templates of paths or glob patterns, filled in per job, unquoted.
        package var inputs: [Template] = []
        /// `--cache-failures`: failed ends (an exit status, a signal) are kept too.
        package var failures = false
        /// `--cache-max`: the most the entries may hold, in bytes.
        package var limit: Int?
        /// `--explain`: say why a job whose name has an entry runs again.
        package var explains = false

        package init(directory: String, variables: [String] = [], inputs: [Template] = [], limit: Int? = nil) {
            self.directory = directory
            self.variables = variables
            self.inputs = inputs
            self.limit = limit
        }
    }

    /// What the store says of a job.
    package enum Lookup: Sendable {
        /// Its end is kept: replay it.
        case hit(CacheEntry)
        /// It runs: store its end under `manifest` once it has ended; `explanation`, with
        /// `--explain`, says what changed since its name's entry.
        case miss(CacheManifest, explanation: String?)
    }

    let store: CacheStore
    package let settings: Settings
    private let shell: String
    /// The jobs' working directory, absolute: relative input paths are found there.
    private let directory: String
    private let variables: [(name: String, digest: String?)]

    /// - Parameters:
    ///   - directory: the jobs' working directory (`--workdir`, else futurerun's), absolute.
    ///   - values: the values of `settings.variables` here (`nil`: unset), the jobs' too.
    package init(
        _ settings: Settings, shell: String, directory: String, values: [(name: String, value: [UInt8]?)] = []
    ) throws(UsageError) {
        store = try CacheStore(directory: settings.directory, limit: settings.limit)
        self.settings = settings
        self.shell = shell
        self.directory = directory
        variables = values.map { ($0.name, $0.value.map(SHA256.digest)) }
    }

    /// The status to keep for a job that ended so, if it is kept: success, and with
    /// `--cache-failures` a failed exit or a signal (never a timeout, a stop, a spawn refused).
    func keptStatus(_ status: JobStatus) -> TerminationStatus? {
        switch status {
        case .succeeded: .exited(0)
        case .failed(let end) where settings.failures:
            switch end {
            case .exited, .signaled: end
            case .timedOut, .cancelled, .failedToStart: nil
            }
        default: nil
        }
    }

    /// Whether the store holds `job`'s end. Blocks on the files its key covers.
    func lookup(_ job: Job) -> Lookup {
        let manifest = manifest(for: job)
        if let entry = store.entry(for: manifest.key) { return .hit(entry) }
        guard settings.explains, let earlier = store.manifest(named: job.name) else {
            return .miss(manifest, explanation: nil)
        }
        let changes = manifest.changes(since: earlier)
        let what =
            changes.isEmpty
            ? "its entry could not be used"
            : changes.prefix(3).joined(separator: "; ") + (changes.count > 3 ? "; and \(changes.count - 3) more" : "")
        return .miss(manifest, explanation: "--explain: job \(job.number) (\(job.label)) runs: \(what)")
    }

    /// `job`'s manifest: its command, the shell, the directory, the variables, its input files.
    package func manifest(for job: Job) -> CacheManifest {
        var inputs: [CacheManifest.Input] = []
        for template in settings.inputs {
            let pattern = String(
                decoding: template.expandUnquoted(arguments: job.arguments, jobNumber: job.number, joiner: 0x20), as: UTF8.self)
            let paths = Self.paths(matching: pattern, in: directory)
            if paths.isEmpty { inputs.append(.unmatched(pattern: pattern)) }
            for path in paths {
                let absolute = path.hasPrefix("/") ? path : directory + "/" + path
                inputs.append(
                    SHA256.digest(ofFileAt: absolute).map { .file(path: path, digest: $0) } ?? .unreadable(path: path))
            }
        }
        return CacheManifest(
            command: job.commandLine(slot: 1), shell: shell, directory: directory, variables: variables, inputs: inputs)
    }

    /// The paths `pattern` names, relative ones found in `directory` and given relative: the path
    /// itself if something is there (a name may hold `[` or `*`), else the glob's matches, sorted.
    package static func paths(matching pattern: String, in directory: String) -> [String] {
        guard !pattern.isEmpty else { return [] }
        let absolute = pattern.hasPrefix("/") ? pattern : directory + "/" + pattern
        var info = stat()
        if lstat(absolute, &info) == 0 { return [pattern] }
        var matches = glob_t()
        defer { globfree(&matches) }
        guard glob(absolute, 0, nil, &matches) == 0 else { return [] }
        let prefix = pattern.hasPrefix("/") ? "" : directory + "/"
        return (0..<Int(matches.gl_pathc)).compactMap { index in
            matches.gl_pathv[index].map { path in String(String(cString: path).dropFirst(prefix.count)) }
        }
    }
}
