import FutureRunKit
import Glibc

// `make generate`: writes the files rendered from the option table (completions, the man page's
// OPTIONS section) into the package at the current directory.
func read(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[0..<count] }
    return String(decoding: bytes, as: UTF8.self)
}

func fail(_ message: String) -> Never {
    let line = Array("generate-usage: \(message)\n".utf8)
    _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func write(_ path: String, _ text: String) {
    guard let file = fopen(path, "w"), fputs(text, file) >= 0, fclose(file) == 0 else {
        fail("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    print("wrote \(path)")
}

for (path, contents) in UsageFiles.completions { write(path, contents) }
guard let page = read(UsageFiles.manPage), let updated = ManPage.updating(page) else {
    fail("\(UsageFiles.manPage) cannot be read or lacks the OPTIONS markers")
}
write(UsageFiles.manPage, updated)
