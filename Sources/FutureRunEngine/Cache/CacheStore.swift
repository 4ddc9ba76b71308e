import FutureCore
import FutureProcess
import FutureRunModel
import Glibc

/// The directory `--cache DIR`: content-addressed entries (``CacheEntry``, `entries/ab/KEY`), the
/// key last stored for each job name (`names/index.*`, for `--explain`: each run adds its own
/// file at its end, merged with those there, ``saveNames()``), and `tmp/`, where files are written
/// before they are renamed into place. Several futurerun processes may share it: a file appears
/// whole or not at all, a reader holds what it opened, and an entry that does not check out is
/// treated as absent. With `--cache-max`, the least recently used entries (by modification time,
/// which a hit renews) go first once the entries pass the bound.
///
/// Every call blocks on the file system. Any thread.
package final class CacheStore: Sendable {
    package let directory: String
    /// `--cache-max`: the most the entries may hold, in bytes.
    private let limit: Int?
    /// What the entries hold, as far as this process knows (`nil`: not counted yet).
    private let held = Locked<Int?>(nil)
    /// The key of each job name: as read from `names/` (at the first ask), and as stored by this run.
    private let names = Locked<(read: [String: String]?, stored: [String: String])>((nil, [:]))

    /// Opens (or makes) the store at `directory`; the reason it cannot be used, as `--cache`'s error.
    package init(directory: String, limit: Int?) throws(UsageError) {
        self.directory = directory
        self.limit = limit
        for path in [directory, directory + "/entries", directory + "/names", directory + "/tmp"] {
            guard mkdir(path.systemPath, 0o755) == 0 || errno == EEXIST else {
                throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            var info = stat()
            guard stat(path.systemPath, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(path.systemPath, W_OK) == 0
            else {
                throw .invalidValue(option: "--cache", value: directory, expected: "a directory futurerun can write in")
            }
        }
    }

    // MARK: Reading

    /// The entry stored under `key`, if it is there and checks out; a hit renews its time. An
    /// entry that does not check out (cut short, changed) is removed.
    package func entry(for key: String, renewing: Bool = true) -> CacheEntry? {
        let path = entryPath(key)
        guard let bytes = TextFile.bytes(path) else { return nil }
        guard let entry = CacheEntry(decoding: bytes, key: key) else {
            unlink(path.systemPath)
            return nil
        }
        if renewing { Self.markUsed(path) }
        return entry
    }

    /// The manifest of the entry last stored for the job named `name`, if that entry is still there.
    package func manifest(named name: String) -> CacheManifest? {
        let digest = SHA256.digest(name.utf8)
        let key = names.withLock { names -> String? in
            if names.read == nil { names.read = readNames().keys }
            return names.read?[digest]
        }
        guard let key, let entry = entry(for: key, renewing: false) else { return nil }
        return CacheManifest(text: entry.manifest)
    }

    // MARK: Writing

    /// Stores `entry` under `key`, for the job named `name`. Returns the error that kept it from
    /// being stored, if any (nothing half-written is left).
    func store(_ entry: CacheEntry, key: String, name: String) -> String? {
        let bytes = entry.encoded(key: key)
        let folder = directory + "/entries/" + key.prefix(2)
        guard mkdir(folder.systemPath, 0o755) == 0 || errno == EEXIST else {
            return "cannot write '\(folder)': \(String(cString: strerror(errno)))"
        }
        if let error = put(bytes, at: entryPath(key)) { return error }
        Self.markUsed(entryPath(key))
        names.withLock { $0.stored[SHA256.digest(name.utf8)] = key }
        if let limit { keep(within: limit, adding: bytes.count) }
        return nil
    }

    /// At the end of the run: the keys this run stored by name, merged with the index files there
    /// into one (this run's win; names whose entry is gone are left out), which replaces those read.
    func saveNames() -> String? {
        let stored = names.withLock { $0.stored }
        guard !stored.isEmpty else { return nil }
        let (earlier, files) = readNames()
        let merged = earlier.merging(stored) { _, new in new }.filter { access(entryPath($0.value).systemPath, F_OK) == 0 }
        let text = merged.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        let name = "index." + SHA256.digest((text + "\(getpid()) \(CommandResult.unixTimeNow())").utf8).prefix(16)
        if let error = put(Array(text.utf8), at: directory + "/names/" + name) { return error }
        for file in files where file != name { unlink("\(directory)/names/\(file)".systemPath) }
        return nil
    }

    /// The name index files there and what they hold (a newer file wins).
    private func readNames() -> (keys: [String: String], files: [String]) {
        let folder = directory + "/names"
        let descriptor = open(folder.systemPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return ([:], []) }
        defer { close(descriptor) }
        var found: [(file: String, time: Double, text: String)] = []
        for file in Directory.entries(of: descriptor) where file.hasPrefix("index.") {
            var info = stat()
            // Gone since it was listed: another run merged it.
            guard fstatat(descriptor, file, &info, 0) == 0, let text = TextFile.read("\(folder)/\(file)") else { continue }
            found.append((file, Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9, text))
        }
        var keys: [String: String] = [:]
        for index in found.sorted(by: { $0.time < $1.time }) {
            for line in index.text.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count == 2 { keys[String(fields[0])] = String(fields[1]) }
            }
        }
        return (keys, found.map(\.file))
    }

    /// Writes `bytes` beside the store, then renames the file to `path`.
    private func put(_ bytes: [UInt8], at path: String) -> String? {
        let made: (descriptor: Int32, path: String)
        switch TemporaryNames.file("write", in: directory + "/tmp") {
        case .success(let file): made = file
        case .failure(let failure):
            return "cannot write in '\(directory)/tmp': \(String(cString: strerror(failure.errno)))"
        }
        let written: String? = {
            let file = ReportFile(descriptor: made.descriptor, path: made.path)  // closed as it goes
            file.write(bytes)
            return file.error
        }()
        if let error = written {
            unlink(made.path.systemPath)
            return error
        }
        guard rename(made.path.systemPath, path.systemPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(made.path.systemPath)
            return "cannot write '\(path)': \(reason)"
        }
        return nil
    }

    /// Removes the least recently used entries while they hold more than `limit`.
    private func keep(within limit: Int, adding count: Int) {
        // Counted once a process from the directory itself (the new entry in it), then kept up.
        let counted = held.withLock { $0 }
        let total = counted.map { $0 + count } ?? allEntries().reduce(0) { $0 + $1.size }
        held.withLock { $0 = total }
        guard total > limit else { return }
        // Counted afresh: other processes add and remove entries too.
        var entries = allEntries().sorted { $0.used < $1.used }
        var size = entries.reduce(0) { $0 + $1.size }
        while size > limit, !entries.isEmpty {
            let oldest = entries.removeFirst()
            if unlink(oldest.path.systemPath) == 0 { size -= oldest.size }
        }
        held.withLock { $0 = size }
    }

    /// Every entry file: its path, size and time of last use.
    private func allEntries() -> [(path: String, size: Int, used: Double)] {
        var found: [(path: String, size: Int, used: Double)] = []
        let root = directory + "/entries"
        let rootDescriptor = open(root.systemPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootDescriptor >= 0 else { return [] }
        defer { close(rootDescriptor) }
        for folder in Directory.entries(of: rootDescriptor) {
            let descriptor = openat(rootDescriptor, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            for name in Directory.entries(of: descriptor) {
                var info = stat()
                guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                let used = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                found.append(("\(root)/\(folder)/\(name)", Int(info.st_size), used))
            }
        }
        return found
    }

    /// Sets the file's modification time, the entry's last use, to now, to the nanosecond: the
    /// kernel's own stamp (a write's, `UTIME_NOW`) is a clock tick coarse, so two uses a few
    /// milliseconds apart would tie and the least recently used could not be told.
    private static func markUsed(_ path: String) {
        let now = CommandResult.unixTimeNow()
        let stamp = timespec(tv_sec: Int(now), tv_nsec: Int((now - now.rounded(.down)) * 1e9))
        var times = [stamp, stamp]
        utimensat(AT_FDCWD, path.systemPath, &times, 0)
    }

    private func entryPath(_ key: String) -> String { "\(directory)/entries/\(key.prefix(2))/\(key)" }
}
