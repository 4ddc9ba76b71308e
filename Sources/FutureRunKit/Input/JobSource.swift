import FutureCore
import Glibc
import Synchronization

/// The jobs of one run, made lazily in input order: pulling the next job reads input only as far
/// as that job, so the first jobs run while stdin is still being written and memory does not grow
/// with the number of jobs waiting.
///
/// Pulled from one thread (the scheduler's); ``knownTotal`` may be read from any thread.
public final class JobSource: Sendable {
    private let state: Locked<State>
    private let total = Locked<Int?>(nil)

    private struct State {
        var produced = 0
        var generator: Generator
    }

    private enum Generator {
        case list([[UInt8]], next: Int)
        case lines(LineReaderBox, template: Template?)
        case combinations(Template, lists: [[[UInt8]]], link: Bool, next: [Int]?)
    }

    private let names: [String]

    /// The number of jobs, once known (at once for command-line forms, at the end of input for
    /// streamed ones).
    public var knownTotal: Int? { total.withLock { $0 } }

    /// - Parameter input: the descriptor to read job lines from, for the streamed forms.
    public init(options: Options, input: Int32?) throws(UsageError) {
        names = options.names
        var generator: Generator
        switch options.source {
        case .commands(let commands):
            generator = .list(commands, next: 0)
            total.withLock { $0 = commands.count }
        case .commandLines:
            generator = .lines(LineReaderBox(LineReader(descriptor: input ?? 0, nullSeparated: options.nullSeparated)), template: nil)
        case .templateLines(let bytes, _):
            let template = Template(bytes)
            if template.highestList > 1 {
                throw .invalidValue(option: "--each", value: String(decoding: bytes, as: UTF8.self),
                                    expected: "only {1} with arguments from input lines (one list)")
            }
            generator = .lines(LineReaderBox(LineReader(descriptor: input ?? 0, nullSeparated: options.nullSeparated)), template: template)
        case .template(let bytes, let lists):
            let template = Template(bytes)
            if template.highestList > lists.count {
                throw .invalidValue(option: "--each", value: String(decoding: bytes, as: UTF8.self),
                                    expected: "at most {\(lists.count)}: there are \(lists.count) argument lists")
            }
            let count = options.link ? lists.map(\.count).max()! : lists.map(\.count).reduce(1, *)
            total.withLock { $0 = count }
            generator = .combinations(template, lists: lists, link: options.link, next: Array(repeating: 0, count: lists.count))
        }
        state = Locked(State(generator: generator))
    }

    /// The next job, blocking while input is read; `nil` when there are no more.
    public func next() -> Job? {
        state.withLock { state -> Job? in
            guard let body = Self.nextBody(&state.generator) else {
                let produced = state.produced
                total.withLock { $0 = produced }
                return nil
            }
            state.produced += 1
            return Job(number: state.produced, label: label(for: body, number: state.produced), body: body)
        }
    }

    /// A read error on the input, if reading stopped because of one.
    public var readError: Int32? {
        state.withLock { state in
            if case .lines(let reader, _) = state.generator { return reader.reader.readError }
            return nil
        }
    }

    private static func nextBody(_ generator: inout Generator) -> Job.Body? {
        switch generator {
        case .list(let commands, let next):
            guard next < commands.count else { return nil }
            generator = .list(commands, next: next + 1)
            return .command(commands[next])
        case .lines(let box, let template):
            while let record = box.reader.next() {
                switch record {
                case .tooLong(let length):
                    return .invalid("input line of \(length) bytes is longer than the \(LineReader.maximumLength) bytes one command may have")
                case .line(let line):
                    if line.contains(0) { return .invalid("input line holds a NUL byte: use -0 for NUL-separated input") }
                    if let template {
                        if line.isEmpty { continue }
                        return .template(template, arguments: [line])
                    }
                    let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 }
                    if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
                    return .command(line)
                }
            }
            return nil
        case .combinations(let template, let lists, let link, let next):
            guard var next else { return nil }
            let arguments = lists.indices.map { lists[$0][next[$0] % lists[$0].count] }
            if link {
                let longest = lists.map(\.count).max()!
                next = next.map { $0 + 1 }
                generator = .combinations(template, lists: lists, link: link, next: next[0] < longest ? next : nil)
            } else {
                var position = lists.count - 1
                while position >= 0 {
                    next[position] += 1
                    if next[position] < lists[position].count { break }
                    next[position] = 0
                    position -= 1
                }
                generator = .combinations(template, lists: lists, link: link, next: position < 0 ? nil : next)
            }
            return .template(template, arguments: arguments)
        }
    }

    private func label(for body: Job.Body, number: Int) -> String {
        if number <= names.count, !names[number - 1].isEmpty { return names[number - 1] }
        switch body {
        case .command(let line): return Self.shorten(String(decoding: line, as: UTF8.self))
        case .template(_, let arguments):
            return Self.shorten(arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " "))
        case .invalid: return "(invalid input)"
        }
    }

    /// At most 48 characters, on one line.
    static func shorten(_ text: String) -> String {
        // The common case, short ASCII without line breaks, needs no Unicode walk.
        let bytes = text.utf8
        if bytes.count <= 48, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 }) { return text }
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return oneLine.count <= 48 ? oneLine : String(oneLine.prefix(47)) + "…"
    }
}

/// Holds the reader, which is only ever used under the source's lock.
// @unchecked Sendable: the LineReader inside is reached only through JobSource's Mutex.
final class LineReaderBox: @unchecked Sendable {  // safe: see the comment above
    let reader: LineReader
    init(_ reader: LineReader) { self.reader = reader }
}
