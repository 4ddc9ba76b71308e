import FutureCore
import FutureProcess
import Glibc

/// Making jobs: the next item of the generator, its header and name, its command line.
extension JobSource {
    /// The next job, numbered and named, blocking while input is read; `nil` when there are no more.
    package func next() -> Job? { state.withLock { produce(&$0) } }

    private func produce(_ state: inout State) -> Job? {
        while true {
            let next = filling == nil ? nextItem(&state.generator) : fillItem(&state, number: state.produced + 1)
            guard let item = next else {
                let made = state.produced - state.skipped
                total.withLock { $0 = made }
                return nil
            }
            state.produced += 1
            let perl = template?.perl ?? tagTemplate?.perl
            perl?.setTotal(knownTotal)
            let made = job(item, number: state.produced)
            switch perl?.takeOutcome() {
            case .skip?:
                // GNU's skip(): the number is used, no job runs, and the run counts one job less.
                state.skipped += 1
                total.withLock { $0 = $0.map { $0 - 1 } }
            case .failed(let why)?:
                return Job(number: made.number, name: made.name, body: .invalid("its {= perl expression =} failed: \(why)"))
            case .value?, nil: return made
            }
        }
    }

    /// A read error on the input, if reading stopped because of one.
    package var readError: Int32? {
        state.withLock { state in
            switch state.generator {
            case .commandLines(let box), .argumentLines(let box): box.reader.readError
            case .shuffled(_, _, let readError): readError
            case .commands, .combinations, .groups: nil
            }
        }
    }

    func nextItem(_ generator: inout Generator) -> Item? {
        switch generator {
        case .commands(let commands, let next):
            guard next < commands.count else { return nil }
            generator = .commands(commands, next: next + 1)
            return .command(commands[next])
        case .shuffled(let items, let next, let readError):
            guard next < items.count else { return nil }
            generator = .shuffled(items, next: next + 1, readError: readError)
            return items[next]
        case .commandLines(let box):
            while let record = box.reader.next() {
                if record.isCut { return .invalid(Self.tooLong(input: record.length), label: Array(record.bytes.prefix(64))) }
                if record.bytes.contains(0) { return .invalid(Self.holdsNul, label: record.bytes) }
                let trimmed = record.bytes.drop { $0 == 0x20 || $0 == 0x09 }
                if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
                return .command(record.bytes)
            }
            return nil
        case .argumentLines(let box):
            var arguments: [[UInt8]] = []
            while arguments.count < (filling == nil ? maxArguments : 1), let record = box.reader.next() {
                if record.length == 0, !keepsEmptyLines { continue }
                if record.isCut, box.reader.keep != Self.labelLimit {
                    let reason =
                        box.reader.keep == Self.recordLimit
                        ? Self.tooLong(record: record.length) : Self.tooLong(input: record.length)
                    return .invalid(reason, label: Array(record.bytes.prefix(64)))
                }
                // With -0 a record cannot hold a NUL; without, a NUL cannot reach a command.
                if record.bytes.contains(0) { return .invalid(Self.holdsNul, label: record.bytes) }
                if let columns { return .arguments(columns.columns(of: record.bytes)) }
                arguments.append(record.bytes)
            }
            return arguments.isEmpty ? nil : .arguments(arguments)
        case .groups(let words, let size, let next):
            guard next < words.count else { return nil }
            let end = min(next + size, words.count)
            generator = .groups(words, size: size, next: end)
            return .arguments(Array(words[next..<end]))
        case .combinations(let lists, let groups, let next):
            guard var next else { return nil }
            var arguments = [[UInt8]](repeating: [], count: lists.count)
            for (group, members) in groups.enumerated() {
                for list in members { arguments[list] = lists[list][next[group] % lists[list].count] }
            }
            var position = groups.count - 1
            while position >= 0 {
                next[position] += 1
                if next[position] < groups[position].map({ lists[$0].count }).max()! { break }
                next[position] = 0
                position -= 1
            }
            generator = .combinations(lists: lists, groups: groups, next: position < 0 ? nil : next)
            if let columns { return .arguments(columns.columns(of: arguments[0])) }
            return .arguments(arguments)
        }
    }

    /// The header of `item` (with the command it leaves), for a job line or a template's job.
    func header(of item: Item, number: Int) -> Result<(header: JobHeader, command: [UInt8]?)?, JobHeader.Problem> {
        switch item {
        case .invalid: return .success(nil)
        case .command(let line):
            return JobHeader.split(line).map { split in split.header.map { ($0, split.command) } }
        case .arguments(let arguments):
            guard let headerTemplate else { return .success(nil) }
            // An argument is one name, whatever it holds: a comma or blank in it is no separator.
            if headerTemplate.usesArguments,
                let bad = arguments.first(where: { $0.contains { $0 == 0x2C || $0 == 0x20 || $0 == 0x09 || $0 == 0x0A } })
            {
                return .failure(.badName(String(decoding: bad, as: UTF8.self)))
            }
            let text = headerTemplate.expandUnquoted(arguments: arguments, jobNumber: number)
            // An argument holding a blank would make more words, or push a word into the command.
            guard let (words, rest) = JobHeader.divide(text), rest.isEmpty, words.count == headerWords else {
                return .failure(.badName(String(decoding: text.dropFirst(), as: UTF8.self)))
            }
            return JobHeader.parse(words).map { ($0, nil) }
        }
    }

    /// Numbers, names and builds one job; a command line past ``commandLimit`` makes it invalid.
    private func job(_ item: Item, number: Int) -> Job {
        func name(_ bytes: some Collection<UInt8>) -> String {
            number <= names.count && !names[number - 1].isEmpty
                ? names[number - 1] : String(decoding: bytes.prefix(Job.nameLimit), as: UTF8.self)
        }
        var found: JobHeader?
        var headerCommand: [UInt8]?
        switch header(of: item, number: number) {
        case .success(let split):
            found = split?.header
            headerCommand = split?.command
        case .failure(let problem):
            let label: [UInt8] =
                switch item {
                case .command(let line): line
                case .arguments(let arguments): Array(arguments.joined(separator: [0x20]))
                case .invalid(_, let label): label
                }
            return Job(number: number, name: name(label), body: .invalid(problem.message))
        }
        switch item {
        case .invalid(let reason, let label):
            return Job(number: number, name: name(label), body: .invalid(reason))
        case .command(let whole):
            let line = headerCommand ?? whole
            let body: Job.Body = line.count > Self.commandLimit ? .invalid(Self.tooLong(command: line.count)) : .command(line)
            return Job(number: number, name: name(line), header: found, body: body)
        case .arguments(let untrimmed):
            let read = trim == .off ? untrimmed : untrimmed.map { Self.trimmed($0, trim) }
            let jobName = name(Array(read.joined(separator: [0x20]).prefix(Job.nameLimit)))
            let template = template!
            let arguments = dropsArguments ? [] : read
            let line = template.expand(arguments: arguments, jobNumber: number, slot: 1)
            if line.count > Self.commandLimit {
                return Job(number: number, name: jobName, header: found, body: .invalid(Self.tooLong(command: line.count)))
            }
            let body: Job.Body = template.usesSlot ? .template(template, arguments: arguments) : .command(line)
            let tag = tagTemplate.map {
                String(decoding: $0.expandUnquoted(arguments: arguments, jobNumber: number, joiner: 0x20), as: UTF8.self)
            }
            return Job(number: number, name: jobName, header: found, body: body, tagString: tag, arguments: read)
        }
    }

    /// `template` with `{NAME}` made `{N}` for the Nth of `names` (`--header`).
    static func naming(_ template: [UInt8], _ names: [[UInt8]]) -> [UInt8] {
        var result = template
        for (index, name) in names.enumerated() where !name.isEmpty {
            result = result.replacing(Array("{".utf8) + name + Array("}".utf8), with: Array("{\(index + 1)}".utf8))
        }
        return result
    }

    /// `template` with each `-I` stand-in made `{}`.
    static func replacingStandIn(_ template: [UInt8], _ standIn: [UInt8]?) -> [UInt8] {
        guard let standIn, !standIn.isEmpty else { return template }
        return template.replacing(standIn, with: Array("{}".utf8))
    }

    /// `argument` without the spaces and tabs `trim` takes.
    package static func trimmed(_ argument: [UInt8], _ trim: Options.Trim) -> [UInt8] {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        var slice = argument[...]
        if trim == .left || trim == .both { slice = slice.drop(while: isBlank) }
        if trim == .right || trim == .both {
            while let last = slice.last, isBlank(last) { slice = slice.dropLast() }
        }
        return Array(slice)
    }

    /// The lists `0..<count` in groups of paired ones: a list in `linked` joins the group before it.
    static func pairedGroups(count: Int, linked: Set<Int>) -> [[Int]] {
        var groups: [[Int]] = []
        for list in 0..<count {
            if linked.contains(list), !groups.isEmpty { groups[groups.count - 1].append(list) } else { groups.append([list]) }
        }
        return groups
    }

    /// The words of one `--each` list: as given, or the lines of a `:::: FILE` (read whole now).
    static func words(of list: Options.ArgumentList, _ options: Options) throws(UsageError) -> [[UInt8]] {
        switch list {
        // -E: a word equal to STR ends the list, as an input record would.
        case .words(let words): return options.endMarker.map { marker in Array(words.prefix { $0 != marker }) } ?? words
        case .file(let path):
            let descriptor = path == "-" ? 0 : open(path.systemPath, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
            defer { if descriptor != 0 { close(descriptor) } }
            let reader = LineReader(
                descriptor: descriptor, separator: options.recordSeparator, endMarker: options.endMarker, keep: commandLimit + 1)
            var words: [[UInt8]] = []
            while let record = reader.next() {
                guard !record.isCut else { throw .unreadableFile(path: path, reason: tooLong(input: record.length)) }
                if !record.bytes.isEmpty { words.append(record.bytes) }
            }
            if let error = reader.readError { throw .unreadableFile(path: path, reason: String(cString: strerror(error))) }
            return words
        }
    }

    private static let holdsNul = "input line holds a NUL byte: use -0 for NUL-separated input"

    private static func tooLong(input length: Int) -> String {
        "input line of \(length) bytes is longer than the \(commandLimit) bytes one command may have"
    }

    private static func tooLong(record length: Int) -> String {
        "input record of \(length) bytes is longer than the \(recordLimit) bytes futurerun holds for one argument"
    }

    private static func tooLong(command length: Int) -> String {
        "the command line built for this job is \(length) bytes, longer than the \(commandLimit) bytes one command may have"
    }
}
