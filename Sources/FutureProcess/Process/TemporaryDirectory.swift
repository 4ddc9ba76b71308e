import Glibc

/// Where futurerun's temporary files go, by one rule for all of them: `$TMPDIR` if set and not
/// empty, else `/tmp` (as POSIX's `mktemp` reads it).
package enum TemporaryDirectory {
    package static var path: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}
