import FutureCore
import FutureProcess
import Glibc

/// The directory `--cache DIR`: content-addressed entries (``CacheEntry``, `entries/ab/KEY`), the
/// last manifest stored for each job name (`names/SHA256-OF-NAME`, for `--explain`), and `tmp/`,
/// where files are written before they are renamed into place. Several futurerun processes may
/// share it: a file appears whole or not at all, a reader holds what it opened, and an entry that
/// does not check out is treated as absent. With `--cache-max`, the least recently used entries
/// (by modification time, which a hit renews) go first once the entries pass the bound.
///
/// Every call blocks on the file system. Any thread.
final class CacheStore: Sendable {
    let directory: String
    /// `--cache-max`: the most the entries may hold, in bytes.
    private let limit: Int?
    /// What the entries hold, as far as this process knows (`nil`: not counted yet).
    private let held = Locked<Int?>(nil)

    /// Opens (or makes) the store at `directory`; the reason it cannot be used, as `--cache`'s error.
    init(directory: String, limit: Int?) throws(UsageError) {
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
    func entry(for key: String) -> CacheEntry? {
        let path = entryPath(key)
        guard let bytes = TextFile.bytes(path) else { return nil }
        guard let entry = CacheEntry(decoding: bytes, key: key) else {
            unlink(path.systemPath)
            return nil
        }
        utimensat(AT_FDCWD, path.systemPath, nil, 0)
        return entry
    }

    /// The manifest last stored for the job named `name`, if its entry is still there.
    func manifest(named name: String) -> CacheManifest? {
        guard let text = TextFile.read(namePath(name)), let manifest = CacheManifest(text: text),
            access(entryPath(manifest.key).systemPath, F_OK) == 0
        else { return nil }
        return manifest
    }

    // MARK: Writing

    /// Stores `entry` under its manifest's key, and the manifest under the job's name. Returns the
    /// error that kept it from being stored, if any (nothing half-written is left).
    func store(_ entry: CacheEntry, manifest: CacheManifest, name: String) -> String? {
        let key = manifest.key
        let bytes = entry.encoded(key: key)
        let folder = directory + "/entries/" + key.prefix(2)
        guard mkdir(folder.systemPath, 0o755) == 0 || errno == EEXIST else {
            return "cannot write '\(folder)': \(String(cString: strerror(errno)))"
        }
        if let error = put(bytes, at: entryPath(key)) ?? put(Array(manifest.text.utf8), at: namePath(name)) { return error }
        if let limit { keep(within: limit, adding: bytes.count) }
        return nil
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
        let total = held.withLock { held -> Int in
            held = (held ?? 0) + count
            return held!
        }
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

    private func entryPath(_ key: String) -> String { "\(directory)/entries/\(key.prefix(2))/\(key)" }

    private func namePath(_ name: String) -> String { "\(directory)/names/\(SHA256.digest(Array(name.utf8)))" }
}
