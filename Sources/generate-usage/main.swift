import FutureRunOptions
import Glibc

// `make generate`: writes the files rendered from the option table (completions, the man page's
// OPTIONS section) into the package at the current directory.
do {
    for path in try UsageFiles.write(root: ".") { print("wrote \(path)") }
} catch {
    let line = Array("generate-usage: \(error)\n".utf8)
    _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    exit(1)
}
