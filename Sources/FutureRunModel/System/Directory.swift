import Glibc

/// Directories read and removed by name: a results folder's job folders, the control sockets of
/// the ssh connections. Blocks on the file system.
package enum Directory {
    /// The names in the folder open at `descriptor`, without `.` and `..`.
    package static func entries(of descriptor: Int32) -> [String] {
        guard let stream = fdopendir(fcntl(descriptor, F_DUPFD_CLOEXEC, 0)) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes the folder at `path` and the files in it (not folders in it).
    package static func remove(_ path: String) {
        let descriptor = open(path.systemPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        for name in entries(of: descriptor) { unlinkat(descriptor, name, 0) }
        close(descriptor)
        rmdir(path)
    }
}
