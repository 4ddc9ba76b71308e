/// The header that makes a job wait for others: `@NAME`, then `after=A,B` (start once A and B have
/// succeeded) and/or `after-any=C` (start once C has ended, however), then the command.
///
///     @build  after=gen        make -j8
///
/// Only a job whose first word starts with `@` has one; any other line is a command as typed.
package struct JobHeader: Sendable, Equatable {
    package var name: String
    /// Jobs that must have succeeded.
    package var after: [String] = []
    /// Jobs that must have ended, however they ended.
    var afterAny: [String] = []

    /// Every job this one waits for, `after` first.
    package var prerequisites: [String] { after + afterAny }

    /// Why a header cannot be read.
    package enum Problem: Error, Equatable {
        case badName(String)
        case emptyList(String)
        case repeated(String)
        case noCommand(String)

        package var message: String {
            switch self {
            case .badName(let name):
                "'\(name)' is not a job name: names are letters, digits and _ . - (as in @build-2)"
            case .emptyList(let key): "'\(key)=' needs job names, as in \(key)=gen,lint"
            case .repeated(let key): "'\(key)=' is given twice: list all the names in one, as in \(key)=gen,lint"
            case .noCommand(let name): "the job @\(name) has no command after its header"
            }
        }
    }

    /// Splits a job line into its header and its command. A line whose first word does not start
    /// with `@` has no header and comes back unchanged.
    package static func split(_ line: [UInt8]) -> Result<(header: JobHeader?, command: [UInt8]), Problem> {
        guard let (words, command) = divide(line) else { return .success((nil, line)) }
        return parse(words).flatMap { header in
            command.contains { $0 != 0x20 && $0 != 0x09 } ? .success((header, command)) : .failure(.noCommand(header.name))
        }
    }

    /// The header's words at the front of `line` (the `@` word, then `after=` and `after-any=`
    /// words) and the command after them; `nil` when the first word does not start with `@`. Only
    /// the words are looked at, not what they say: a template's header (`@build-{}`) divides so too.
    static func divide(_ line: [UInt8]) -> (header: [ArraySlice<UInt8>], command: [UInt8])? {
        var words = Words(line)
        guard let first = words.peek(), first.first == UInt8(ascii: "@") else { return nil }
        var header = [first]
        words.skip()
        while let word = words.peek(), word.starts(with: Array("after=".utf8)) || word.starts(with: Array("after-any=".utf8)) {
            header.append(word)
            words.skip()
        }
        return (header, words.rest)
    }

    /// The header the words of ``divide(_:)`` give, with every name checked.
    package static func parse(_ words: [ArraySlice<UInt8>]) -> Result<JobHeader, Problem> {
        let name = String(decoding: words[0].dropFirst(), as: UTF8.self)
        guard isName(name) else { return .failure(.badName(name)) }
        var header = JobHeader(name: name)
        var seen: Set<String> = []
        for word in words.dropFirst() {
            let text = String(decoding: word, as: UTF8.self)
            let key = text.hasPrefix("after=") ? "after" : "after-any"
            guard seen.insert(key).inserted else { return .failure(.repeated(key)) }
            let names = text.dropFirst(key.count + 1).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard names != [""] else { return .failure(.emptyList(key)) }
            if let bad = names.first(where: { !isName($0) }) { return .failure(.badName(bad)) }
            if key == "after" { header.after = names } else { header.afterAny = names }
        }
        return .success(header)
    }

    /// `[A-Za-z0-9_.-]+`.
    package static func isName(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// The header as it is written, for `--dry-run`.
    package var text: String {
        var words = ["@" + name]
        if !after.isEmpty { words.append("after=" + after.joined(separator: ",")) }
        if !afterAny.isEmpty { words.append("after-any=" + afterAny.joined(separator: ",")) }
        return words.joined(separator: " ")
    }
}

/// Blank-separated words at the front of a line, and the rest of it as it is.
private struct Words {
    private let line: [UInt8]
    private var position = 0

    init(_ line: [UInt8]) { self.line = line }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The next word, not taken.
    func peek() -> ArraySlice<UInt8>? {
        var start = position
        while start < line.count, Self.isBlank(line[start]) { start += 1 }
        var end = start
        while end < line.count, !Self.isBlank(line[end]) { end += 1 }
        return end > start ? line[start..<end] : nil
    }

    mutating func skip() {
        while position < line.count, Self.isBlank(line[position]) { position += 1 }
        while position < line.count, !Self.isBlank(line[position]) { position += 1 }
    }

    /// What follows the words taken, without the blanks before it.
    var rest: [UInt8] { Array(line[position...].drop(while: Self.isBlank)) }
}
