import Glibc

/// The environment handed to children: the caller's, captured once as C strings, plus per-command
/// additions. Building a child's `envp` costs one pointer per variable and a copy of the additions
/// only, not a copy of the whole environment.
final class SpawnEnvironment: Sendable {
    /// Names and addresses of `NAME=value` copies of this process's environment when the engine
    /// started. Never freed or written: they live as long as the engine, which lives as long as the
    /// process.
    private let baseNames: [[UInt8]]
    private let baseAddresses: [Int]

    init() {
        var names: [[UInt8]] = []
        var addresses: [Int] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let copy = strdup(entry)!
            let length = strlen(copy)
            let equals = memchr(copy, 0x3D, length).map { $0.assumingMemoryBound(to: CChar.self) - copy } ?? length
            let name = UnsafeRawBufferPointer(start: copy, count: equals)
            names.append(Array(name))
            addresses.append(Int(bitPattern: copy))
            cursor += 1
        }
        baseNames = names
        baseAddresses = addresses
    }

    /// Calls `body` with an `envp` of the base environment, with `additions` replacing variables of
    /// the same name.
    func withEnvironment<R>(
        adding additions: [(name: String, value: String)],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        if additions.isEmpty {
            var pointers = baseAddresses.map { UnsafePointer<CChar>(bitPattern: $0) }
            pointers.append(nil)
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
        // A handful of additions: comparing names directly beats hashing every base name.
        let replaced = additions.map { Array($0.name.utf8) }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(baseAddresses.count + additions.count + 1)
        for index in baseNames.indices where !replaced.contains(baseNames[index]) {
            pointers.append(UnsafePointer(bitPattern: baseAddresses[index]))
        }
        let added = additions.map { strdup("\($0.name)=\($0.value)")! }
        defer { for entry in added { free(entry) } }
        for entry in added { pointers.append(UnsafePointer(entry)) }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
