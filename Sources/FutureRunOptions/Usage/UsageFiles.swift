import FutureRunModel
import Glibc

/// The checked-in files rendered from the option table, by path from the package root: what
/// `make generate` writes (``write(root:)``) and what a test compares with the tree (``stale(root:)``).
public enum UsageFiles {
    /// The man page, whose OPTIONS section is rendered into the hand-written rest.
    static let manPage = "docs/futurerun.1"

    /// Every rendered file with its contents as they should be; `nil` when the man page cannot be
    /// read or lacks its OPTIONS markers. Blocks on the file system.
    static func rendered(root: String) -> [(path: String, contents: String)]? {
        guard let page = TextFile.read(root + "/" + manPage), let updated = ManPage.updating(page) else { return nil }
        return [
            ("completions/futurerun.bash", Completions.bash),
            ("completions/_futurerun", Completions.zsh),
            ("completions/futurerun.fish", Completions.fish),
            (manPage, updated),
        ]
    }

    /// The paths whose checked-in contents differ from what the table renders.
    static func stale(root: String) -> [String] {
        guard let files = rendered(root: root) else { return [manPage] }
        return files.filter { TextFile.read(root + "/" + $0.path) != $0.contents }.map(\.path)
    }

    /// Writes every rendered file; returns the paths written, or throws the first that failed (an
    /// error whose description is the message).
    public static func write(root: String) throws -> [String] {
        try writeFiles(root: root)
    }

    private static func writeFiles(root: String) throws(UsageError) -> [String] {
        guard let files = rendered(root: root) else {
            throw .unreadableFile(path: manPage, reason: "missing, or without its OPTIONS markers")
        }
        for (path, contents) in files {
            let full = root + "/" + path
            guard let file = fopen(full, "w") else { throw .cannotWrite(path: full, reason: String(cString: strerror(errno))) }
            let written = fputs(contents, file) >= 0
            guard fclose(file) == 0, written else { throw .cannotWrite(path: full, reason: String(cString: strerror(errno))) }
        }
        return files.map(\.path)
    }
}
