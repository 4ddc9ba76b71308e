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
    static let commandLimit = 128 * 1024 - 1
    /// The most of one input record held when the template may shorten it (`{.}`, `{/}`, `{//}`)
    /// or splits it into columns, so that only the command built from it is held to the limit.
    static let recordLimit = 1 << 30
    /// What is kept of a record the command does not use (`--each 'echo {#}'`): its label's worth.
    static let labelLimit = 4096

    package let state: Locked<State>
    let total = Locked<Int?>(nil)

    package struct State {
        var produced = 0
        /// Jobs a Perl expression skipped (`skip()`).
        package var skipped = 0
        var generator: Generator
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

    let names: [String]
    package let template: Template?
    /// `--xargs`, `-m`, `-X` (``fillItem(_:number:)``), and the job slots `-m`/`-X` spread over.
    package let filling: Options.Filling?
    package let spreadOver: Int
    /// `--tagstring`, with the replacement strings filled in per job.
    let tagTemplate: Template?
    /// A template's `@NAME after=...` words, filled in unquoted per job (`@build-{}`), and how many.
    let headerTemplate: Template?
    let headerWords: Int
    package let maxArguments: Int
    /// An empty input line is a job (GNU's grammar without `-r`).
    let keepsEmptyLines: Bool
    /// `-n 0`: each job runs without its argument.
    let dropsArguments: Bool
    /// `--trim` (and `--colsep`'s default): blanks taken from each argument or column.
    let trim: Options.Trim
    let columns: ColumnSplitter?

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
}

/// Holds the reader, which is only ever used under the source's lock.
// @unchecked Sendable: the LineReader inside is reached only through JobSource's Mutex.
package final class LineReaderBox: @unchecked Sendable {  // safe: see the comment above
    package let reader: LineReader
    package init(_ reader: LineReader) { self.reader = reader }
}
