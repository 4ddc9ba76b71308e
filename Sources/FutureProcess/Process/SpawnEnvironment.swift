import FutureCore
import Glibc

/// The environment handed to children: the caller's, captured once as C strings, plus per-command
/// additions. Building a child's `envp` costs a copy of the base's pointers and of the additions'
/// bytes, on the stack: no heap allocation per spawn, not a copy of the whole environment.
final class SpawnEnvironment: Sendable {
    /// Addresses of `NAME=value` copies of this process's environment when the engine started.
    /// Never freed or written: they live as long as the engine, which lives as long as the process.
    private let baseAddresses: [Int]
    /// The name of each of them, as bytes.
    private let baseNames: [[UInt8]]

    init() {
        var addresses: [Int] = []
        var names: [[UInt8]] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let copy = strdup(entry)!
            let length = strlen(copy)
            let equals = memchr(copy, 0x3D, length).map { $0.assumingMemoryBound(to: CChar.self) - copy } ?? length
            names.append(Array(UnsafeRawBufferPointer(start: copy, count: equals)))
            addresses.append(Int(bitPattern: copy))
            cursor += 1
        }
        baseAddresses = addresses
        baseNames = names
    }

    /// Where the base environment has a variable called `name`: a handful of additions against a
    /// few dozen names, most of them ruled out by their length, costs less than hashing (and less,
    /// at start-up, than building an index).
    private func indices(of name: String, into replaced: inout [Int]) {
        var name = name
        name.withUTF8 { wanted in
            for (index, base) in baseNames.enumerated() where base.count == wanted.count && base.elementsEqual(wanted) {
                replaced.append(index)
            }
        }
    }

    /// Calls `body` with an `envp` of the base environment without the variables named in
    /// `removed`, with `additions` replacing variables of the same name. The `envp` is valid only
    /// during the call.
    func withEnvironment<R>(
        adding additions: [(name: String, value: String)], removing removed: Set<String> = [],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        var replaced: [Int] = []
        for name in removed { indices(of: name, into: &replaced) }
        var textCount = 0
        for addition in additions {
            indices(of: addition.name, into: &replaced)
            textCount += addition.name.utf8.count + addition.value.utf8.count + 2
        }
        let pointerCount = baseAddresses.count + additions.count + 1
        return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: pointerCount) { pointers in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, textCount)) { text in
                var count = 0
                if replaced.isEmpty {
                    baseAddresses.withUnsafeBytes { base in
                        guard let source = base.baseAddress else { return }
                        UnsafeMutableRawPointer(pointers.baseAddress!).copyMemory(from: source, byteCount: base.count)
                    }
                    count = baseAddresses.count
                } else {
                    for (index, address) in baseAddresses.enumerated() where !replaced.contains(index) {
                        pointers[count] = UnsafePointer(bitPattern: address)
                        count += 1
                    }
                }
                var offset = 0
                for addition in additions {
                    pointers[count] = UnsafeRawPointer(text.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
                    count += 1
                    for byte in addition.name.utf8 {
                        text[offset] = byte
                        offset += 1
                    }
                    text[offset] = 0x3D  // "="
                    offset += 1
                    for byte in addition.value.utf8 {
                        text[offset] = byte
                        offset += 1
                    }
                    text[offset] = 0
                    offset += 1
                }
                pointers[count] = nil
                return body(UnsafePointer(pointers.baseAddress!))
            }
        }
    }
}
