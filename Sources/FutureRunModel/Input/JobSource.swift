import FutureCore
import FutureProcess
import Glibc

/// The jobs of one run, made lazily in input order: pulling the next job reads input only as far
/// as that job, so the first jobs run while stdin is still being written and memory does not grow
/// with the number of jobs waiting.
///
/// Pulled from one thread (the scheduler's); ``knownTotal`` may be read from any thread.
package final class JobSource: JobOrigin {
    /// The longest command line a job may have: Linux takes at most 128 KiB, its NUL included, as
    /// one argument (MAX_ARG_STRLEN), and a job's line is the one argument after `sh -c`.
    package static let commandLimit = 128 * 1024 - 1
    /// The most of one input record held when the template may shorten it (`{.}`, `{/}`, `{//}`)
    /// or splits it into columns, so that only the command built from it is held to the limit.
    package static let recordLimit = 1 << 30
    /// What is kept of a record the command does not use (`--each 'echo {#}'`): its label's worth.
    private static let labelLimit = 4096

    package let state: Locked<State>
    private let total = Locked<Int?>(nil)

    package struct State {
        package var produced = 0
        /// Jobs a Perl expression skipped (`skip()`).
        package var skipped = 0
        package var generator: Generator
        package var filling = FillingState()
    }

    package enum Generator {
        case commands([[UInt8]], next: Int)
        case commandLines(LineReaderBox)
        case argumentLines(LineReaderBox)
        /// Every combination of the groups' positions, the last group fastest; within a group
        /// (lists paired by `--link` or `:::+`) every list at the same position, a shorter list
        /// starting again from its first under `--link` (`:::+` cuts the longer ones to the
        /// shortest), as GNU parallel pairs them.
        case combinations(lists: [[[UInt8]]], groups: [[Int]], next: [Int]?)
        /// `-n N` over one list: N consecutive arguments per job.
        case groups([[UInt8]], size: Int, next: Int)
        /// `--shuf`: every job of the input, read ahead, in a random order (and the error that
        /// ended reading it, if one did).
        case shuffled([Item], next: Int, readError: Int32?)
    }

    /// One job before it is numbered: a command line, a template's arguments, or why it cannot run.
    package enum Item {
        case command([UInt8])
        case arguments([[UInt8]])
        case invalid(String, label: [UInt8])
    }

    private let names: [String]
    package let template: Template?
    /// `--xargs`, `-m`, `-X` (``fillItem(_:number:)``), and the job slots `-m`/`-X` spread over.
    package let filling: Options.Filling?
    package let spreadOver: Int
    /// `--tagstring`, with the replacement strings filled in per job.
    private let tagTemplate: Template?
    /// A template's `@NAME after=...` words, filled in unquoted per job (`@build-{}`), and how many.
    private let headerTemplate: Template?
    private let headerWords: Int
    package let maxArguments: Int
    /// An empty input line is a job (GNU's grammar without `-r`).
    private let keepsEmptyLines: Bool
    /// `-n 0`: each job runs without its argument.
    private let dropsArguments: Bool
    /// `--trim` (and `--colsep`'s default): blanks taken from each argument or column.
    private let trim: Options.Trim
    private let columns: ColumnSplitter?

    /// The number of jobs, once known (at once for command-line forms, at the end of input for
    /// streamed ones).
    package var knownTotal: Int? { total.withLock { $0 } }

    /// - Parameter input: the descriptor to read job lines from, for the streamed forms.
    /// - Parameter spreadOver: the job slots `-m` and `-X` spread the last arguments over.
    package init(options: Options, input: Int32?, spreadOver: Int = 1) throws(UsageError) {
        filling = options.filling
        self.spreadOver = max(1, spreadOver)
        names = options.names
        tagTemplate = try options.tagString.map { bytes throws(UsageError) in
            try Template(bytes, plus: options.plus, perl: options.perlExpressions)
        }
        // `-n 0` reads one argument a job, as `-n 1` does, and runs the job without it.
        maxArguments = max(1, options.maxArguments)
        keepsEmptyLines = options.emptyLinesAreJobs
        dropsArguments = options.maxArguments == 0
        trim = options.trim ?? (options.columnSeparator != nil ? .both : .off)
        columns = options.columnSeparator.map(ColumnSplitter.init)
        var generator: Generator
        switch options.source {
        case .blocks:
            preconditionFailure("--pipe's jobs are BlockJobs'")
        case .commands(let commands):
            template = nil
            headerTemplate = nil
            headerWords = 0
            generator = .commands(commands, next: 0)
            total.withLock { $0 = commands.count }
        case .commandLines:
            template = nil
            headerTemplate = nil
            headerWords = 0
            let reader = LineReader(
                descriptor: input ?? 0, separator: options.recordSeparator, endMarker: options.endMarker,
                keep: Self.commandLimit + 1)
            generator = .commandLines(LineReaderBox(reader))
        case .templateLines(let given, _):
            var bytes = Self.replacingStandIn(given, options.replacement)
            // --header: the first line names the columns, for {name} in the template.
            var headerReader: LineReader?
            if options.header {
                guard let columns else {
                    throw .needsOption(
                        option: "--header", needs: "--colsep (or ::: lists)",
                        example: "futurerun --header : --colsep , --each 'echo {name}'")
                }
                let reader = LineReader(
                    descriptor: input ?? 0, separator: options.recordSeparator, endMarker: options.endMarker,
                    keep: Self.recordLimit)
                let names = reader.next().map { columns.columns(of: $0.bytes).map { Self.trimmed($0, .both) } } ?? []
                bytes = Self.naming(bytes, names)
                headerReader = reader
            }
            let (header, words, template) = try Self.templates(bytes, options)
            self.template = template
            headerTemplate = header
            headerWords = words
            let lists = options.columnSeparator != nil ? Int.max : max(1, options.maxArguments)
            if template.highestList > lists {
                throw .invalidValue(
                    option: "--each", value: String(decoding: bytes, as: UTF8.self),
                    expected: "only {1} with one argument per input line (or -n N, or --colsep)")
            }
            let reader =
                headerReader
                ?? LineReader(
                    descriptor: input ?? 0, separator: options.recordSeparator, endMarker: options.endMarker,
                    keep: Self.keep(for: template, options))
            generator = .argumentLines(LineReaderBox(reader))
        case .template(let given, let argumentLists, let linked):
            var bytes = Self.replacingStandIn(given, options.replacement)
            var lists = try argumentLists.map { list throws(UsageError) in try Self.words(of: list, options) }
            // --header: each list's first word names it, for {name} in the template.
            if options.header {
                bytes = Self.naming(bytes, lists.map { $0.first ?? [] })
                lists = lists.map { Array($0.dropFirst()) }
            }
            let (header, words, template) = try Self.templates(bytes, options)
            self.template = template
            headerTemplate = header
            headerWords = words
            let available =
                options.maxArguments > 1 ? options.maxArguments : (options.columnSeparator != nil ? Int.max : lists.count)
            if template.highestList > available {
                throw .invalidValue(
                    option: "--each", value: String(decoding: bytes, as: UTF8.self),
                    expected: "at most {\(lists.count)}: there are \(lists.count) argument lists")
            }
            if options.filling != nil {
                generator = .groups(lists[0], size: 1, next: 0)
            } else if options.maxArguments > 1 {
                total.withLock { $0 = (lists[0].count + options.maxArguments - 1) / options.maxArguments }
                generator = .groups(lists[0], size: options.maxArguments, next: 0)
            } else {
                let groups = Self.pairedGroups(count: lists.count, linked: options.link ? Set(1..<lists.count) : linked)
                // `:::+` pairs without wrapping: the shortest list of a group decides its length
                // (`--link` wraps the shorter ones).
                if !options.link {
                    for group in groups where group.count > 1 {
                        let shortest = group.map { lists[$0].count }.min()!
                        for list in group { lists[list] = Array(lists[list].prefix(shortest)) }
                    }
                }
                let empty = lists.contains(where: \.isEmpty)
                total.withLock { $0 = empty ? 0 : groups.map { group in group.map { lists[$0].count }.max()! }.reduce(1, *) }
                generator = .combinations(
                    lists: lists, groups: groups, next: empty ? nil : Array(repeating: 0, count: groups.count))
            }
        }
        state = Locked(State(generator: generator))
        // GNU's total_jobs() in a Perl expression needs the whole input first, as in GNU parallel.
        let needsTotal = [template, tagTemplate].contains { $0?.perlUses("total_jobs") == true }
        if options.shuffle || (needsTotal && knownTotal == nil) { readAll(shuffled: options.shuffle) }
        try checkKnownGraph(state.withLock { $0.generator })
    }

    /// Reads the whole input now, so that the total is known; `shuffled` (`--shuf`): hands its
    /// jobs over in a random order, numbered in that order (GNU parallel's `{#}` under `--shuf` too).
    private func readAll(shuffled: Bool) {
        state.withLock { state in
            var items: [Item] = []
            while let item = nextItem(&state.generator) { items.append(item) }
            if shuffled { items.shuffle() }
            total.withLock { $0 = items.count }
            var readError: Int32?
            if case .commandLines(let box) = state.generator { readError = box.reader.readError }
            if case .argumentLines(let box) = state.generator { readError = box.reader.readError }
            state.generator = .shuffled(items, next: 0, readError: readError)
        }
    }

    /// A template's header (if it starts with `@`) and its command, parsed apart.
    private static func templates(
        _ bytes: [UInt8], _ options: Options
    ) throws(UsageError) -> (header: Template?, words: Int, command: Template) {
        let repeatsWords = options.filling?.repeatsWords ?? false
        guard let (words, command) = JobHeader.divide(bytes) else {
            let template = try Template(bytes, plus: options.plus, repeatsWords: repeatsWords, perl: options.perlExpressions)
            if options.filling != nil, template.highestList > 0 {
                throw .invalidValue(
                    option: "--each", value: String(decoding: bytes, as: UTF8.self),
                    expected: "{} for the arguments: with --xargs, -m or -X a job's arguments are not numbered")
            }
            return (nil, 0, template)
        }
        if options.filling != nil { throw .badJobGraph("a job header names one job's argument; not with --xargs, -m or -X") }
        let header = try Template(Array(words.joined(separator: [0x20])), plus: options.plus)
        if header.usesSlot { throw .badJobGraph("a job header cannot hold {%}: the slot is known only when the job starts") }
        return (header, words.count, try Template(command, plus: options.plus, perl: options.perlExpressions))
    }

    /// Where the whole list is known before the run (`:::` segments, `--each` lists), a bad graph is
    /// bad usage: nothing runs. (Streamed input finds out job by job: that job fails.)
    private func checkKnownGraph(_ generator: Generator) throws(UsageError) {
        switch generator {
        case .commands, .combinations, .groups, .shuffled: break
        case .commandLines, .argumentLines: return
        }
        guard headerTemplate != nil || Self.mayHoldHeaders(generator) else { return }
        var copy = generator
        var headers: [JobHeader?] = []
        var number = 0
        while let item = nextItem(&copy) {
            number += 1
            switch header(of: item, number: number) {
            case .success(let found): headers.append(found?.header)
            case .failure(let problem): throw .badJobGraph("job \(number): " + problem.message)
            }
        }
        if let problem = JobNames.check(headers) { throw .badJobGraph(problem) }
    }

    /// Whether any `:::` command starts with `@` (the common list has none: no pass is needed).
    private static func mayHoldHeaders(_ generator: Generator) -> Bool {
        guard case .commands(let commands, _) = generator else { return false }
        return commands.contains { $0.first { $0 != 0x20 && $0 != 0x09 } == UInt8(ascii: "@") }
    }

    /// How much of an input record to keep: just past the command limit when the command holds
    /// the record whole (a longer one cannot run anyway); all of it, up to ``recordLimit``, when
    /// the template may shorten or split it; enough for a label when the template does not use it.
    private static func keep(for template: Template, _ options: Options) -> Int {
        if options.columnSeparator != nil { return recordLimit }
        let whole = options.maxArguments > 1 ? template.holdsEveryArgumentWhole : template.holdsFirstArgumentWhole
        if whole { return commandLimit + 1 }
        let usesArguments = template.parts.contains { if case .argument = $0 { true } else { false } }
        return usesArguments ? recordLimit : labelLimit
    }

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

    package func nextItem(_ generator: inout Generator) -> Item? {
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
    private func header(of item: Item, number: Int) -> Result<(header: JobHeader, command: [UInt8]?)?, JobHeader.Problem> {
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
    package static func naming(_ template: [UInt8], _ names: [[UInt8]]) -> [UInt8] {
        var result = template
        for (index, name) in names.enumerated() where !name.isEmpty {
            result = result.replacing(Array("{".utf8) + name + Array("}".utf8), with: Array("{\(index + 1)}".utf8))
        }
        return result
    }

    /// `template` with each `-I` stand-in made `{}`.
    package static func replacingStandIn(_ template: [UInt8], _ standIn: [UInt8]?) -> [UInt8] {
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
    package static func pairedGroups(count: Int, linked: Set<Int>) -> [[Int]] {
        var groups: [[Int]] = []
        for list in 0..<count {
            if linked.contains(list), !groups.isEmpty { groups[groups.count - 1].append(list) } else { groups.append([list]) }
        }
        return groups
    }

    /// The words of one `--each` list: as given, or the lines of a `:::: FILE` (read whole now).
    private static func words(of list: Options.ArgumentList, _ options: Options) throws(UsageError) -> [[UInt8]] {
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

/// Holds the reader, which is only ever used under the source's lock.
// @unchecked Sendable: the LineReader inside is reached only through JobSource's Mutex.
package final class LineReaderBox: @unchecked Sendable {  // safe: see the comment above
    package let reader: LineReader
    package init(_ reader: LineReader) { self.reader = reader }
}
