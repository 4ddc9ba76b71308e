import FutureRunModel

extension OptionDeclaration {
    /// Every option futurerun takes, in the order `--help` and the man page list them.
    package static let all: [OptionDeclaration] = {
        // Each section is made here and moved in once: `a + b + c` copies every option again per `+`.
        var all = input
        for section in [running, hosts, ci, output, reports, information] { all.append(contentsOf: section) }
        return all
    }()

    private static var input: [OptionDeclaration] {
        [
            .init(
                ["arg-file"], short: "a", value: .file(), example: "-a jobs.txt", section: .input,
                help: ["read jobs (or --each arguments) from FILE: -a jobs.txt; - is stdin"],
                manual: """
                    Read jobs, or the arguments of `--each`, one per line from FILE; `-` is stdin. Given \
                    again, with `--each`, each file is a list of arguments, combined with the others \
                    (paired with `--link`), as in GNU parallel.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.argumentFiles.append(value!) }),
            .init(
                ["each"], value: .text("TEMPLATE"), example: "--each 'gzip {}' *.log", section: .input,
                help: [
                    "run TEMPLATE per argument: --each 'gzip -k {}' *.log",
                    "(every word after TEMPLATE is an argument, even one starting with -)",
                ],
                manual: """
                    Run TEMPLATE once per argument: the words after it, `:::` lists, `::::` files, or \
                    input lines. Every word after TEMPLATE is an argument, even one that starts with \
                    `-`; a `--` right after TEMPLATE is dropped. A word spelled as one of futurerun's \
                    long options (`--dry-run`) is refused there as a misplaced option, unless that \
                    `--` comes first.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.template = Array(value!.utf8)
                    parsed.optionsEnded = true
                }),
            .init(
                ["link", "xapply"], example: "--link", section: .input,
                help: ["pair the ::: lists element by element instead of combining them"],
                manual: "Pair `:::` lists element-wise (shorter lists wrap) instead of combining them.",
                effect: { parsed, _ throws(UsageError) in parsed.options.link = true }),
            .init(
                ["null"], short: "0", example: "-0", section: .input,
                help: ["input records end with NUL, not newline: find -print0 | futurerun -0 ..."],
                manual: "Input records end with NUL instead of newline.",
                effect: { parsed, _ throws(UsageError) in parsed.options.nullSeparated = true }),
            .init(
                ["plus"], example: "--plus", section: .input,
                help: ["also {..} {+.} ... and edits {:N} {#re} {%re} {/re/str} {^re}, as GNU parallel's --plus"],
                manual: """
                    GNU parallel's strings of `--plus`. Paths: `{..}` and `{...}` drop the last two or three \
                    extensions (if the name has them), `{/..}` and `{/...}` the same of the base name, \
                    `{+/}` is the directory (empty if none), `{+.}` `{+..}` `{+...}` the last one, two or \
                    three extensions, so that `{}` = `{+/}/{/}` = `{..}.{+..}`. Edits, after bash's: \
                    `{:-str}` (str if empty), `{:N}` and `{:N:M}` (bytes from N), `{#re}` `{##re}` (without the \
                    shortest or longest prefix re matches), `{%re}` `{%%re}` (suffix), `{/re/str}` \
                    `{//re/str}` `{/#re/str}` `{/%re/str}` (replace the first, every, a leading or a \
                    trailing match), `{^re}` `{^^re}` `{,re}` `{,,re}` (upper or lower case of a leading or \
                    every match); re is a regular expression, str is taken as it is, and each takes a list \
                    number as the others do (`{2%.gz}`). `{##}`, `{0#}`, `{0%}`, `{uniq}` and the host strings \
                    are refused.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.plus = true }),
            .init(
                ["header"], value: .text(":"), example: "--header :", section: .input,
                help: [
                    "the first line names --colsep's columns (or each ::: list its first word): {name}",
                    "with --pipe, the first line (or N lines: --header 2) heads every block",
                ],
                manual: """
                    With `:`: the first input line, split by `--colsep`, names the columns, or each `:::` \
                    list's first word names that list; `{name}` in the template is then that column or \
                    list, as in GNU parallel's `--header :`. With `--pipe`, the first line (`:`) or the \
                    first N lines (a number) of the input head every block, as in GNU parallel.
                    """,
                effect: { parsed, value throws(UsageError) in
                    if value == ":" {
                        parsed.options.header = true
                    } else if let lines = Int(value!), lines >= 0 {
                        parsed.options.headerLines = lines
                    } else {
                        throw .invalidValue(option: "--header", value: value!, expected: ": or, with --pipe, a number of lines")
                    }
                }),
            .init(
                ["pipe", "spreadstdin"], example: "--pipe", section: .input,
                help: ["cut stdin into blocks (--block, default 1M) at record ends; each block one job's stdin"],
                manual: """
                    Cut the input (stdin, or one `-a FILE`) into blocks of about `--block` bytes that end \
                    at a record's end, and run the command once per block with the block on its stdin, as \
                    GNU parallel's `--pipe`: `futurerun --pipe wc -l < big.txt`. The command is the words \
                    given, joined (no `:::`); `{#}` is the block's number and `{%}` its slot. Output, \
                    reports, retries (with the same block), `--timeout` and `--halt` work as for every job. \
                    At most about (`-j` + 2) x `--block` bytes are held at once, whatever the input's size. \
                    An empty input runs no job.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.pipe = .stream }),
            .init(
                ["pipe-part", "pipepart"], example: "--pipe-part -a big.csv", section: .input,
                help: ["as --pipe over -a FILE, each job reading its part of the file through the kernel"],
                manual: """
                    As `--pipe`, over the file of `-a FILE` (or `:::: FILE`), which must be seekable: the \
                    cuts are found by reading a little at each block border, and each job's part goes from \
                    the file to its stdin through the kernel (`splice`), never through futurerun's memory. \
                    Not with `-N` or `--header`.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.pipe = .fileParts }),
            .init(
                ["block", "block-size"], value: .text("SIZE"), example: "--pipe --block 10M", section: .input,
                help: ["with --pipe: blocks of about SIZE bytes (K, M, G; default 1M): --block 10M"],
                manual: """
                    With `--pipe` or `--pipe-part`, cut blocks of about SIZE bytes (default 1M), with GNU \
                    parallel's suffixes (`K` `M` `G` powers of 1024, `k` `m` `g` of 1000). A block ends at \
                    the last record end within SIZE, or, for a record longer than SIZE, at its end.
                    """,
                effect: { parsed, value throws(UsageError) in
                    let size = try OptionValue.byteSize(value!, option: "--block")
                    guard size > 0 else {
                        throw .invalidValue(option: "--block", value: value!, expected: "a size over 0, as 10M")
                    }
                    parsed.options.blockSize = size
                }),
            .init(
                ["recend"], value: .text("STR"), example: "--pipe --recend ';'", section: .input,
                help: ["with --pipe: records end with STR (default newline; '' with --recstart alone)"],
                manual: """
                    With `--pipe`: records end with STR, and blocks are cut only right after one. The \
                    default is a newline, unless `--recstart` alone is given; `--recend ''` with no \
                    `--recstart` cuts anywhere. Backslash escapes `\\n`, `\\t`, `\\r`, `\\0` and `\\\\` are read as bytes.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.recordEnd = OptionValue.escapedBytes(value!) }),
            .init(
                ["recstart"], value: .text("STR"), example: "--pipe --recstart '>'", section: .input,
                help: ["with --pipe: records start with STR; blocks are cut only before one: --recstart '>'"],
                manual: """
                    With `--pipe`: records start with STR, and blocks are cut only right before one (and \
                    after `--recend`, when both are given, as GNU parallel does). Escapes as for `--recend`.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.recordStart = OptionValue.escapedBytes(value!) }),
            .init(
                ["regexp"], example: "--regexp", section: .input,
                help: ["with --pipe: --recend and --recstart are regular expressions"],
                manual: """
                    With `--pipe`: `--recend` and `--recstart` are regular expressions (Swift's, which \
                    read as Perl's but for its own extensions), matched against the bytes read.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.recordPatterns = true }),
            .init(
                ["shuf"], example: "--shuf", section: .input,
                help: ["run the jobs in a random order (the input is read whole first)"],
                manual: """
                    Read the whole input first and run its jobs in a random order, numbered (`{#}`) in \
                    that order, as GNU parallel's `--shuf`. Not with `--resume` (it knows jobs by number).
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.shuffle = true }),
            .init(
                ["replace"], short: "I", value: .text("STR"), example: "-I %", section: .input,
                help: ["STR in the template stands for {}: -I % --each 'mv % %.bak'"],
                manual: "In the `--each` template, STR stands for `{}` (xargs' and GNU parallel's `-I`).",
                effect: { parsed, value throws(UsageError) in
                    guard !value!.isEmpty else {
                        throw .invalidValue(option: "--replace", value: "", expected: "a string, as in %")
                    }
                    parsed.options.replacement = ArgumentText.bytes(value!)
                }),
            .init(
                ["delimiter"], short: "d", value: .text("DELIM"), example: "-d ,", section: .input,
                help: ["input records end with DELIM, one byte or \\n \\t \\0: -d ,"],
                manual: """
                    Input records end with DELIM instead of newline: one byte, or `\\n`, `\\t`, `\\0`, `\\\\` \
                    (xargs' and GNU parallel's `-d`).
                    """,
                effect: { parsed, value throws(UsageError) in
                    let escapes: [String: UInt8] = ["\\n": 0x0A, "\\t": 0x09, "\\0": 0, "\\\\": 0x5C]
                    let bytes = Array(value!.utf8)
                    guard let byte = escapes[value!] ?? (bytes.count == 1 ? bytes[0] : nil) else {
                        throw .invalidValue(option: "--delimiter", value: value!, expected: "one byte, or \\n, \\t, \\0")
                    }
                    parsed.options.delimiter = byte
                }),
            .init(
                ["eof"], short: "E", value: .text("STR"), example: "-E END", section: .input,
                help: ["an input record equal to STR ends the input: -E END"],
                manual: "An input record equal to STR ends the input; nothing after it is read (xargs' and GNU parallel's `-E`).",
                effect: { parsed, value throws(UsageError) in parsed.options.endMarker = ArgumentText.bytes(value!) }),
            .init(
                ["max-args", "max-replace-args"], short: "n", shortAliases: ["N"], value: .text("N"), example: "-n 10",
                section: .input,
                help: ["up to N arguments per job: -n 10 ({} is all of them, each quoted)"],
                manual: """
                    Give each job up to N arguments (the last job may get fewer). `{}` is all of them, \
                    each quoted; `{1}` .. `{N}` one each (a missing one is empty). `0`, as in GNU parallel: \
                    one job per argument, run without it. `-N` is the same: GNU parallel's `-N` with \
                    `{1}` .. `{N}`. Needs `--each` and one argument list.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.maxArguments = try OptionValue.count(value!, option: "--max-args")
                    parsed.options.maxArgumentsGiven = true
                }),
            .init(
                ["xargs"], example: "--xargs", section: .input,
                help: ["as many arguments per job as a command line holds (GNU parallel's --xargs)"],
                manual: """
                    Give each job as many arguments as its command line holds (128 KiB less 4 KiB \
                    for the job's number and slot), as xargs and GNU parallel's `--xargs` do; `{}` is \
                    all of them, each quoted, and `-n N` caps them. Needs `--each` and one argument list.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.filling = .init(spreads: false, repeatsWords: false) }),
            .init(
                ["multiple"], short: "m", example: "-m", section: .input,
                help: ["as --xargs, the last arguments spread over the job slots (GNU parallel's -m)"],
                manual: """
                    As `--xargs`, but when input ends the arguments left are spread evenly over the \
                    job slots (`-j`), so that the last jobs run side by side: GNU parallel's `-m`.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.filling = .init(spreads: true, repeatsWords: false) }),
            .init(
                ["multiple-context"], short: "X", example: "-X", section: .input,
                help: ["as -m, each word with {} repeated per argument: -X 'echo a{}b' (GNU parallel's -X)"],
                manual: """
                    As `-m`, and each word of the template that holds a replacement string is repeated \
                    once per argument, so `-X 'cp -t dst x/{}'` gives `cp -t dst x/a x/b ...`: GNU \
                    parallel's `-X`. A word ends at a blank, quotes or not, as GNU parallel reads it.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.filling = .init(spreads: true, repeatsWords: true) }),
            .init(
                ["colsep"], value: .text("REGEX"), example: "--colsep '\\t'", section: .input,
                help: ["split each input line into columns {1} {2} ... at REGEX: --colsep ,"],
                manual: """
                    Split each argument (an input line) into columns at matches of REGEX, given to the \
                    template as `{1}`, `{2}` and so on; a missing column is empty. Needs `--each` and \
                    one argument list. A REGEX without special characters splits bytes as they are; \
                    any other is matched on the line as UTF-8 text. Blanks around each column are \
                    trimmed, as in GNU parallel (`--trim n` keeps them).
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.columnSeparator = try OptionValue.columnSeparator(value!)
                }),
            .init(
                ["trim"], value: .init(placeholder: "n|l|r|lr", completion: .words(["n", "l", "r", "lr", "rl"])),
                example: "--trim lr", section: .input,
                help: ["trim blanks of each argument or column: n none, l left, r right, lr both"],
                manual: """
                    Trim spaces and tabs around each argument (with `--colsep`, each column): `n` none, \
                    `l` on the left, `r` on the right, `lr` or `rl` both. With `--colsep` the default is \
                    both, else none, as in GNU parallel.
                    """,
                effect: { parsed, value throws(UsageError) in
                    switch value! {
                    case "n": parsed.options.trim = .off
                    case "l": parsed.options.trim = .left
                    case "r": parsed.options.trim = .right
                    case "lr", "rl": parsed.options.trim = .both
                    default: throw .invalidValue(option: "--trim", value: value!, expected: "n, l, r or lr")
                    }
                }),
        ]
    }

    private static var running: [OptionDeclaration] {
        [
            .init(
                ["jobs", "max-procs"], short: "j", shortAliases: ["P"], value: .text("N"), example: "-j4", section: .running,
                help: [
                    "run N jobs at once: -j4; 0 = no limit; 50% of the CPUs: -j50%",
                    "(default: the CPUs this process may use)",
                ],
                manual: """
                    Run N jobs at once; `0` no limit; N`%` of the CPUs. Default: the CPUs this process \
                    may use (affinity mask and cgroup quota). Lowered, with one notice, to fit the \
                    descriptor and process limits. Inside `make -j`N futurerun takes its slots from \
                    make's jobserver; a recipe line must start with `+` for GNU make before 4.4 to open \
                    it, and without it futurerun says so once and runs one job at a time, as make does.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.jobs = try OptionValue.jobs(value!, option: "--jobs")
                }),
            .init(
                ["shell"], value: .init(placeholder: "PATH", completion: .program), example: "--shell /bin/bash",
                section: .running,
                help: ["run jobs with PATH -c instead of /bin/sh: --shell /bin/bash"],
                manual: "Run jobs with PATH `-c`. A shell that cannot be run is refused at the start.",
                effect: { parsed, value throws(UsageError) in
                    parsed.options.shell = value!
                    parsed.options.shellGiven = true
                }),
            .init(
                ["fast"], example: "--fast", section: .running,
                help: ["accepted for GNU parallel: each job already runs the cheapest way that keeps it whole"],
                manual: """
                    Accepted for GNU parallel's `--fast`, and changes nothing: futurerun picks for each                 job by itself the cheapest way that keeps its own exit status, output and time — its                 program exec'd directly when the line needs no shell, its slot's warm shell when it                 is a list of plain commands and `echo`/`printf`/`test`, else a shell of its own                 (see `--json`'s `path`). Unlike GNU's `--fast`, no job's failure, time or `cd`                 reaches another.
                    """,
                effect: { _, _ throws(UsageError) in }),
            .init(
                ["nice"], value: .text("N"), example: "--nice 10", section: .running,
                help: ["run the jobs at niceness N (as GNU parallel's --nice): --nice 10"],
                manual: "Run the jobs at niceness N, 1 to 19 (futurerun's own, which they inherit); not on other hosts.",
                effect: { parsed, value throws(UsageError) in
                    guard let number = Int32(value!), (1...19).contains(number) else {
                        throw .invalidValue(option: "--nice", value: value!, expected: "a niceness from 1 to 19")
                    }
                    parsed.options.niceness = number
                }),
            .init(
                ["workdir", "wd"], short: "C", value: .directory, example: "-C build", section: .running,
                help: ["run jobs in DIR: -C build"],
                manual: "Run jobs in DIR.",
                effect: { parsed, value throws(UsageError) in parsed.options.workingDirectory = value }),
            .init(
                ["timeout"], value: .duration, example: "--timeout 30s", section: .running,
                help: ["stop a job after TIME (TERM, then KILL): --timeout 1m30s; 0 = no limit"],
                manual: """
                    Stop a job after TIME (`500ms`, `30s`, `5m`, `1h`, `1m30s`): SIGTERM to its process \
                    group, SIGKILL after the grace period. It counts as failed, marked "timeout". `0` \
                    means no limit, as in GNU parallel and coreutils timeout.
                    """,
                effect: { parsed, value throws(UsageError) in
                    let duration = try OptionValue.duration(value!, option: "--timeout")
                    parsed.options.timeout = duration == .zero ? nil : duration
                }),
            .init(
                ["grace"], value: .duration, example: "--grace 5s", section: .running,
                help: ["between TERM and KILL (default 5s): --grace 2s"],
                manual: "Between SIGTERM and SIGKILL (default 5s).",
                effect: { parsed, value throws(UsageError) in
                    parsed.options.grace = try OptionValue.duration(value!, option: "--grace")
                }),
            .init(
                ["retries"], value: .text("N"), example: "--retries 3", section: .running,
                help: ["give a failed job N attempts in all, as GNU parallel: --retries 3"],
                manual: """
                    Give a failed job up to N attempts in all (GNU parallel's meaning; 0 and 1 are one). Its \
                    output is then shown when its last attempt ends.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.retries = try OptionValue.count(value!, option: "--retries")
                }),
            .init(
                ["memfree"], value: .text("SIZE"), example: "--memfree 2G", section: .running,
                help: ["start a job only while SIZE is free (the cgroup's limit too): --memfree 2G"],
                manual: """
                    Start a job only while at least SIZE of memory is available, as GNU parallel's \
                    `--memfree`: the least of the machine's `MemAvailable` and the headroom of every \
                    memory cgroup futurerun runs in (v1 and v2: the limits of containers and CI jobs \
                    count). A job counts as holding SIZE for its first second, until it has taken its \
                    memory, so a burst of starts cannot overshoot. Below half of SIZE the youngest \
                    running job is stopped (TERM, then KILL after the grace period) and runs again later, \
                    neither a failure nor a retry. SIZE takes GNU parallel's suffixes: `K` `M` `G` `T` \
                    powers of 1024, `k` `m` `g` `t` of 1000; more than there could ever be is refused. \
                    How long each job waited for memory is in its status line, `--json` record and the \
                    summary. Jobs on this machine only (not with `-S`).
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.memoryFree = try OptionValue.byteSize(value!, option: "--memfree")
                }),
            .init(
                ["memsuspend"], value: .text("SIZE"), example: "--memsuspend 2G", section: .running,
                help: ["suspend jobs while less than 2 x SIZE is free, resume them after: --memsuspend 2G"],
                manual: """
                    Suspend jobs (SIGSTOP to each job's processes) while less than twice SIZE of memory is \
                    available, the youngest first and one at a time; below SIZE all but the oldest at once. \
                    They resume, the oldest first, once twice SIZE is available again; while any is \
                    suspended, nothing new starts. As GNU parallel's `--memsuspend`, with memory read as \
                    for `--memfree` (the cgroup's limit too). A suspended job keeps its memory; the time it \
                    was suspended is in its status line and `--json` record. A job starts only while twice \
                    SIZE is free, so SIZE above half the memory there is is refused at the start.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.memorySuspend = try OptionValue.byteSize(value!, option: "--memsuspend")
                }),
            .init(
                ["load"], value: .text("N"), example: "--load 100%", section: .running,
                help: ["start a job only while fewer than N other threads run: --load 100% (one per CPU)"],
                manual: """
                    Start a job only while fewer than N threads of other processes are running or waiting \
                    for the disk right now (state R or D; kernel threads and futurerun's own left out; not \
                    the load average, which trails by a minute), and one at a time, as GNU parallel's \
                    `--load` measures with `ps axH`. N as `-j` takes it: `8`, or `100%` for one per CPU. \
                    Held back for over 5 s, the run says so once.
                    """,
                effect: { parsed, value throws(UsageError) in
                    let load = try OptionValue.jobsValue(value!, option: "--load")
                    if load == .count(0) {
                        throw .invalidValue(
                            option: "--load", value: value!, expected: "at least 1, or a share of the CPUs (100%)")
                    }
                    parsed.options.load = load
                }),
            .init(
                ["fail-fast"], example: "--fail-fast", section: .running,
                help: ["at the first failure, start nothing new and stop running jobs"],
                manual: "At the first failure start nothing new and stop running jobs.",
                effect: { parsed, _ throws(UsageError) in parsed.options.halt = .failFast }),
            .init(
                ["halt", "halt-on-error"], value: .words("WHEN", ["now", "soon", "now,fail=1", "soon,fail=1", "now,success=1"]),
                example: "--halt now,fail=1", section: .running,
                help: [
                    "GNU parallel's --halt: now|soon[,fail=N|fail=N%|success=N]",
                    "--halt now,success=1 races the jobs: the first success wins",
                ],
                manual: """
                    `now`|`soon`[,`fail=`N|`fail=`N`%`|`success=`N], as in GNU parallel. `now` stops \
                    running jobs, `soon` lets them finish (and, as GNU parallel, still starts the jobs \
                    that fit in slots that were free when the run halted). `success=1` races the jobs \
                    and exits 0 when one succeeds.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.halt = try OptionValue.halt(value!, option: "--halt")
                }),
            .init(
                ["delay"], value: .duration, example: "--delay 100ms", section: .running,
                help: ["wait TIME between job starts: --delay 200ms"],
                manual: "Wait TIME between job starts.",
                effect: { parsed, value throws(UsageError) in
                    let duration = try OptionValue.duration(value!, option: "--delay")
                    parsed.options.delay = duration == .zero ? nil : duration
                }),
            .init(
                ["no-run-if-empty"], short: "r", example: "-r", section: .input,
                help: ["an empty input line is no job (always so, but in --gnu's grammar)"],
                manual: """
                    An empty input line is no job. So by default in futurerun's grammar; in GNU parallel's \
                    (`--gnu`) an empty line is a job with an empty argument unless `-r` is given.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.emptyLinesAreJobs = false }),
            .init(
                ["gnu"], example: "--gnu", section: .input,
                help: ["read the command line as GNU parallel does (also when run as 'parallel')"],
                manual: """
                    Read the command line with GNU parallel's grammar (also when futurerun runs under the name \
                    `parallel`): the command, then `:::`/`::::` sources, stdin lines as arguments when none is \
                    given, arguments appended to a command without replacement strings, `-q` as `--quote`, \
                    `-C` as `--colsep`, empty lines as jobs, `-v` on stdout, no status lines; jobs run in \
                    `$PARALLEL_SHELL`, else the shell that started futurerun, else `$SHELL`; `{= perl =}` is \
                    evaluated by one `perl` for the run, with `$_`, `$job->seq()`, `@arg`, `Q()`, `uq()` and \
                    `skip()` as in GNU parallel. The README's table says where the two grammars differ.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.grammar = .gnu }),
            .init(
                ["will-cite", "no-notice", "citation", "bibtex"], example: "--will-cite", section: .input,
                help: ["accepted for GNU parallel's scripts; futurerun asks for no citation"],
                manual: "Accepted for GNU parallel's scripts; futurerun asks for no citation and prints no notice.",
                effect: { _, _ throws(UsageError) in }),
            .init(
                ["dry-run", "dryrun"], example: "--dry-run", section: .running,
                help: ["print the jobs' command lines, run nothing"],
                manual: "Print each job's command line; run nothing.",
                effect: { parsed, _ throws(UsageError) in parsed.options.dryRun = true }),
        ]
    }

    private static var hosts: [OptionDeclaration] {
        [
            .init(
                ["slurm"], example: "--slurm", section: .hosts,
                help: ["inside a Slurm allocation (salloc, sbatch), run each job as a step of it (srun)"],
                manual: """
                    Inside a Slurm allocation (`salloc`, `sbatch`), run each job as a job step: `srun --exact \
                    -N1 -n1 -c C -w NODE`, with the job's environment and working directory, so Slurm \
                    accounts for it and binds its CPUs. `-j` defaults to what the allocation holds (its \
                    tasks, else its CPUs divided by C); each slot belongs to one of its nodes, taken in \
                    turn, and the node is the job's host in the status line, `--joblog`, `--json` and \
                    `--timeline`. A timeout, `--halt`, `--fail-fast` and a stop send TERM to `srun`, which \
                    cancels the step; a step left behind by a stop is cancelled (`scancel`) at the end.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.slurm = true }),
            .init(
                ["slurm-slots"], example: "--slurm-slots", section: .hosts,
                help: ["with --slurm: one long-lived step per slot runs its jobs in turn (for many short jobs)"],
                manual: """
                    With `--slurm`, start one step per slot, with the slot's first job, and run that slot's \
                    jobs in it one after another (a subshell each on the node, not a step): for thousands \
                    of short jobs, about ten times faster and a step creation per slot instead of per job. \
                    The trade-off: Slurm accounts for the slots' steps, not for each job, and a job's \
                    output arrives when it ends (no `--live` while it runs), its CPU time and peak memory \
                    are not known, and a job killed by a signal reports the shell's exit status (128+N). \
                    Order, reports, `--timeout` (by `timeout` on the node), `--retries`, `--halt` and \
                    stops hold as without it; stopping a job stops its slot's step, and the slot's next job \
                    starts another.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.slurmSlots = true }),
            .init(
                ["slurm-cpus"], value: .text("C"), example: "--slurm-cpus 4", section: .hosts,
                help: ["with --slurm: CPUs each step gets (default SLURM_CPUS_PER_TASK, else 1)"],
                manual: "With `--slurm`, the CPUs each job's step gets (`srun -c C`); default `SLURM_CPUS_PER_TASK`, else 1.",
                effect: { parsed, value throws(UsageError) in
                    parsed.options.slurmCPUs = try OptionValue.positiveCount(value!, option: "--slurm-cpus")
                }),
            .init(
                ["slurm-rate"], value: .text("N"), example: "--slurm-rate 20", section: .hosts,
                help: ["with --slurm: create at most N steps a second (default \(SlurmAllocation.defaultStepRate))"],
                manual: """
                    With `--slurm`, start at most N job steps a second, after a first burst of N (default \
                    \(SlurmAllocation.defaultStepRate)): each step costs the controller several RPCs, and thousands \
                    of tiny steps a second slow it for every user of the cluster.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.slurmRate = try OptionValue.positiveCount(value!, option: "--slurm-rate")
                }),
            .init(
                ["hosts", "sshlogin"], short: "S", value: .text("HOSTS"), example: "-S 4/build1,build2,:", section: .hosts,
                help: [
                    "run jobs on these machines over ssh: -S 8/build1,user@build2,: (: is this one)",
                    "(N/ gives a host N slots; else -j, else the host's CPUs; repeatable)",
                ],
                manual: """
                    Run the jobs on these machines, a comma-separated list of [N/]DEST; the option may be \
                    repeated. DEST is what ssh takes: a host, user@host, or an alias of your ssh config; `:` is \
                    this machine. N/ gives a host N slots; without it a host gets `-j`, or else as many as it has \
                    CPUs, asked once as it connects. Each host's connection is opened once, in parallel with the \
                    others, and reused by every job (OpenSSH multiplexing); it is closed at exit. A host that \
                    cannot be reached or drops is taken out with one notice, and its jobs run on the others.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.hosts += try HostSpec.parseList(value!) }),
            .init(
                ["hosts-file", "sshloginfile", "slf"], value: .file(), example: "--hosts-file hosts.txt", section: .hosts,
                help: ["read more hosts from FILE, one [N/]DEST a line (# starts a comment)"],
                manual: "Read more hosts from FILE: one [N/]DEST a line; `#` starts a comment, blank lines are skipped.",
                effect: { parsed, value throws(UsageError) in parsed.options.hostsFile = value }),
            .init(
                ["ssh"], value: .init(placeholder: "CMD", completion: .program), example: "--ssh 'ssh -F ci.conf'",
                section: .hosts,
                help: ["the ssh command to reach hosts with (default: ssh): --ssh 'ssh -F ci.conf'"],
                manual: """
                    The command that reaches a host, split into words as the shell would (quotes and backslashes); \
                    default `ssh`, the system's OpenSSH, with your ssh config. It is given OpenSSH options (-o \
                    ControlMaster, ControlPath, ControlPersist=no, BatchMode=yes, ServerAliveInterval, \
                    ServerAliveCountMax; -O check; -T), then DEST \
                    and the command.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.ssh = try OptionValue.commandWords(value!, option: "--ssh")
                }),
            .init(
                ["env"], value: .text("NAME"), example: "--env PATH", section: .hosts,
                help: ["give remote jobs this variable's value here (unset here: unset there): --env CC"],
                manual: """
                    Give jobs on other hosts variable NAME as it is here: its value, or unset when it is unset \
                    here. Repeat it for more. Jobs on this machine have the whole environment anyway; remote jobs \
                    get their login's, plus FUTURERUN_JOB, FUTURERUN_SLOT, FUTURERUN_NAME and these.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.forwardedVariables.append(try OptionValue.variableName(value!, option: "--env"))
                }),
        ]
    }

    private static var ci: [OptionDeclaration] {
        [
            .init(
                ["shard"], value: .words("K/N", ["auto", "1/2", "2/2"]), example: "--shard 2/5", section: .ci,
                help: ["run only this CI node's share of the jobs: --shard 2/5; auto reads the CI's node variables"],
                manual: """
                    Run only the K-th of N shares of the jobs (1-based). A job's shard comes from its name \
                    (or command) alone, through FNV-1a (64-bit, of its UTF-8 bytes) modulo N, so it stays put \
                    when jobs are added or removed; jobs joined by `after=` share one shard. Job numbers stay \
                    those of the whole list. `auto` reads GitLab's CI_NODE_INDEX/CI_NODE_TOTAL (1-based), \
                    CircleCI's CIRCLE_NODE_INDEX/_TOTAL, Buildkite's BUILDKITE_PARALLEL_JOB/_COUNT, \
                    Bitbucket's BITBUCKET_PARALLEL_STEP/_COUNT, Slurm's job arrays \
                    (SLURM_ARRAY_TASK_ID/_MIN/_STEP/_COUNT) and tasks (SLURM_PROCID/SLURM_NTASKS), Google \
                    Cloud Batch's BATCH_TASK_INDEX/_COUNT (0-based); Kubernetes' JOB_COMPLETION_INDEX and \
                    AWS Batch's AWS_BATCH_JOB_ARRAY_INDEX (0-based) pass no count: give it as `auto/N`. \
                    With none set it is 1/1, with a notice. A shard with no job exits 0 with a \
                    notice. The job list is read whole before the first job starts.
                    """,
                effect: { parsed, value throws(UsageError) in
                    if value == "auto" {
                        parsed.options.shard = .auto(count: nil)
                    } else if value!.hasPrefix("auto/"), let count = Int(value!.dropFirst(5)), count >= 1 {
                        parsed.options.shard = .auto(count: count)
                    } else if let shard = Shard.parse(value!) {
                        parsed.options.shard = .fixed(shard)
                    } else {
                        throw .invalidValue(
                            option: "--shard", value: value!, expected: "K/N with 1 <= K <= N, as in 2/5, auto, or auto/N")
                    }
                }),
            .init(
                ["shard-timings"], value: .file(), example: "--shard-timings last.jsonl", section: .ci,
                help: ["balance the shards by an earlier run's --joblog, --json or --junit: --shard-timings last.jsonl"],
                manual: """
                    Balance the shards by how long each job took in an earlier run, read from its \
                    `--joblog` (concatenated shard joblogs too), `--json` or `--junit`: longest first onto \
                    the least loaded shard; a job the file does not know counts the mean. The summary says \
                    each shard's expected time.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.shardTimings = value }),
            .init(
                ["resume"], example: "--resume", section: .ci,
                help: ["with --joblog FILE: skip the jobs FILE holds, but those a signal ended"],
                manual: """
                    With `--joblog` FILE: skip the jobs FILE already holds (known by their number, its Seq \
                    column), and append to FILE. A job FILE records as ended by a signal (killed, stopped, cut \
                    by the end of a Slurm allocation) is not done and runs again; GNU parallel's --resume skips \
                    it. A joblog written by GNU parallel works too.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.resume = .done }),
            .init(
                ["resume-failed"], example: "--resume-failed", section: .ci,
                help: ["with --joblog FILE: run again the jobs FILE records as failed, skip the rest it holds"],
                manual: """
                    With `--joblog` FILE: run again the jobs FILE records as failed (Exitval or Signal not \
                    0), skip the others it holds, run those it does not hold; append to FILE.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.resume = .failed }),
            .init(
                ["rerun-failed"], value: .file(), example: "--rerun-failed report.xml", section: .ci,
                help: ["run only the jobs that failed or did not finish in FILE (--junit or --joblog); repeat it"],
                manual: """
                    Run only the jobs that failed or did not finish in FILE, an earlier run's `--junit` \
                    (a `<failure>`, `<error>` or `<skipped>` testcase, known by its name) or `--joblog` \
                    (Exitval or Signal not 0, known by its Seq number). Repeat it to take the union of \
                    several, as the reports of all shards: `--rerun-failed 'r1.xml' --rerun-failed \
                    'r2.xml'`. With `--shard`, a shard reruns its own jobs among them. A job that fails \
                    then passes under `--retries` is reported flaky.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.rerunFailed.append(value!) }),
            .init(
                ["cache"], value: .directory, example: "--cache .futurerun-cache", section: .ci,
                help: ["replay the end of a job whose command and inputs have not changed: --cache DIR"],
                manual: """
                    Keep each successful job's stdout, stderr and exit status in DIR, under a key: the \
                    SHA-256 of its command line, the shell, the working directory, the variables \
                    `--cache-env` names and the content of the files `--cache-input` names. A job whose \
                    key is there is not run: its output is replayed in order, and it is marked `cached` \
                    in the status line, `--joblog` (Host), `--json` (`"path": "cached"`), `--junit` \
                    (`group="cached"`) and `--timeline`. Entries are written aside and renamed into \
                    place, checked by a SHA-256 when read: several futurerun processes may share DIR, \
                    and an entry cut short is never trusted. DIR can be kept between CI runs with the \
                    runner's cache action (Examples/ci/github-cache.yml). Not with `--pipe`.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.cache = value! }),
            .init(
                ["cache-env"], value: .text("NAME"), example: "--cache .cache --cache-env CC", section: .ci,
                help: ["with --cache: the key covers this variable's value; repeat it"],
                manual: """
                    With `--cache`: the key covers variable NAME's value (or that it is unset). Repeat it \
                    for more. No variable is covered unless named; values are stored only as hashes.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.cacheVariables.append(try OptionValue.variableName(value!, option: "--cache-env"))
                }),
            .init(
                ["cache-input"], value: .text("GLOB"), example: "--cache .cache --cache-input {}", section: .ci,
                help: ["with --cache: the key covers the content of these files; templates allowed: --cache-input {}"],
                manual: """
                    With `--cache`: the key covers the content of the files GLOB names, found from the \
                    jobs' working directory. Replacement strings are filled in per job, unquoted \
                    (`--cache-input {}`, `--cache-input 'src/{/.}.c'`). A path that exists is taken as it \
                    is, else as a glob pattern; a pattern that matches nothing counts too, so a file \
                    appearing there changes the key. Repeat it for more.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.cacheInputs.append(ArgumentText.bytes(value!)) }),
            .init(
                ["cache-failures"], example: "--cache-failures", section: .ci,
                help: ["with --cache: keep failed ends too (an exit status or a signal)"],
                manual: """
                    With `--cache`: keep a failed job's end too (a non-zero exit status or a signal; \
                    never a timeout or a job futurerun stopped), and replay it as a failure.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.cacheFailures = true }),
            .init(
                ["cache-max"], value: .text("SIZE"), example: "--cache .cache --cache-max 1G", section: .ci,
                help: ["with --cache: keep DIR's entries under SIZE, least recently used first out: --cache-max 1G"],
                manual: """
                    With `--cache`: once the entries hold more than SIZE (`K` `M` `G` `T`), the least \
                    recently used go first (a hit counts as a use).
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.cacheLimit = try OptionValue.byteSize(value!, option: "--cache-max")
                }),
            .init(
                ["explain"], example: "--explain", section: .ci,
                help: ["with --cache: say what changed for a job that runs although its name has an entry"],
                manual: """
                    With `--cache`: for each job that runs although the cache holds an entry for its name, \
                    say in one line what changed: the command text, an input file (changed, new or gone), \
                    a variable, the shell or the working directory.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.explain = true }),
        ]
    }

    private static var output: [OptionDeclaration] {
        [
            .init(
                ["keep-order"], short: "k", example: "-k", section: .output,
                help: ["output in input order: always so; with --line-buffer, too (as GNU parallel's -k)"],
                manual: """
                    Output in input order. It always is; the option is accepted as GNU parallel's users \
                    type it. With `--line-buffer` it keeps the order too, as in GNU parallel: the oldest \
                    job's lines come as it writes them, the others' when it is their turn.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.keepOrder = true }),
            .init(
                ["quiet"], short: "q", example: "-q", section: .output,
                help: ["no status lines, no summary"],
                manual: "No status lines and no summary.",
                effect: { parsed, _ throws(UsageError) in parsed.options.quiet = true }),
            .init(
                ["verbose"], short: "v", example: "-v", section: .output,
                help: ["print each job's command line before its output (on stderr)"],
                manual: "Print each job's command line, as GNU parallel prints it, on stderr, before its output.",
                effect: { parsed, _ throws(UsageError) in parsed.options.verbose = true }),
            .init(
                ["tag"], example: "--tag", section: .output,
                help: ["prefix each output line with the job's label and a TAB"],
                manual: "Prefix each output line with the job's label and a TAB.",
                effect: { parsed, _ throws(UsageError) in parsed.options.tag = true }),
            .init(
                ["tagstring", "tag-string"], value: .text("STR"), example: "--tagstring '{1}:'", section: .output,
                help: ["prefix each line with STR and a TAB, replacement strings filled in: --tagstring {#}"],
                manual: """
                    Like `--tag`, with STR in place of the job's name: replacement strings are filled in \
                    as they are, unquoted (`--tagstring '{#} {1}'`), as GNU parallel's `--tagstring`.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.tag = true
                    parsed.options.tagString = ArgumentText.bytes(value!)
                }),
            .init(
                ["live"], example: "--live", section: .output,
                help: ["print lines as soon as any job writes them, prefixed [label]"],
                manual: """
                    Print whole lines as soon as any job writes them, prefixed with its `[label]`; \
                    lines never mix. A last line without newline gets one. Status lines follow in \
                    completion order.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.live = true }),
            .init(
                ["line-buffer", "linebuffer", "line-buffered", "lb"], example: "--line-buffer", section: .output,
                help: ["print lines as soon as any job writes them, as they are (GNU parallel's)"],
                manual: """
                    Print whole lines as soon as any job writes them, as they are: GNU parallel's \
                    `--line-buffer`. `--live` is the same with each line prefixed by its job's `[label]`.
                    """,
                effect: { parsed, _ throws(UsageError) in
                    parsed.options.live = true
                    parsed.options.liveMode = .lines
                }),
            .init(
                ["ungroup"], short: "u", example: "-u", section: .output,
                help: ["print output as it is read, half lines too (GNU parallel's -u)"],
                manual: """
                    Print each job's output as it is read, half lines too, so lines of jobs running at \
                    once may mix: GNU parallel's `-u`. The fastest way, for output nothing reads line by line.
                    """,
                effect: { parsed, _ throws(UsageError) in
                    parsed.options.live = true
                    parsed.options.liveMode = .asRead
                }),
            .init(
                ["files", "output-as-files", "outputasfiles"], example: "--files", section: .output,
                help: ["save each job's stdout in a file and print its name (GNU parallel's --files)"],
                manual: """
                    Save each job's stdout in a file of its own, `$TMPDIR/futurerun-XXXXXX` (kept after \
                    the run), and print the file's name in its place, in input order: GNU parallel's \
                    `--files`. Stderr is printed as usual; a file that cannot be written fails the run.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.files = true }),
            .init(
                ["names"], value: .text("A,B,..."), example: "--names lint,test", section: .output,
                help: ["labels for the jobs: --names lint,test,docs"],
                manual: "Labels for the jobs, in order.",
                effect: { parsed, value throws(UsageError) in
                    parsed.options.names = value!.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                }),
            .init(
                ["quiet-success"], example: "--quiet-success", section: .output,
                help: ["failures and the summary only: no line or output for a job that succeeds"],
                manual: """
                    Failures and the summary only: a job that succeeds shows neither its output nor its \
                    status line; after the summary, each failed job's last 20 lines are replayed.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.quietSuccess = true }),
            .init(
                ["color", "colour"], value: .words("WHEN", ["auto", "always", "never"]), example: "--color never",
                section: .output,
                help: ["auto (default), always or never; NO_COLOR is honoured"],
                manual: "`auto` (on a terminal, unless NO_COLOR is set or TERM=dumb), `always`, `never`.",
                effect: { parsed, value throws(UsageError) in
                    parsed.options.color = try OptionValue.choice(value!, option: "--color")
                }),
            .init(
                ["progress", "bar", "eta"], example: "--progress", section: .output,
                help: ["a live progress line on stderr (by default when stderr is a terminal)"],
                manual: """
                    A progress line on stderr (done/total, running, failed, what holds jobs back that `-j` would start \
                    (memory, load, make's jobserver, a refused spawn, `--slurm-rate`), ETA). Default: when stderr \
                    is a terminal and not in CI. GNU parallel's `--bar` and `--eta` ask for the same line.
                    """,
                effect: { parsed, _ throws(UsageError) in parsed.options.progress = .on }),
            .init(
                ["no-progress"], example: "--no-progress", section: .output,
                help: ["no progress line"],
                manual: "No progress line.",
                effect: { parsed, _ throws(UsageError) in parsed.options.progress = .off }),
            .init(
                ["ci"], value: .words("KIND", ["auto", "github", "gitlab", "none"]), example: "--ci github",
                section: .output,
                help: ["log groups for auto (default), github, gitlab or none"],
                manual: """
                    `auto` (GITHUB_ACTIONS=true, GITLAB_CI=true), `github`, `gitlab` or `none`: each \
                    job's block is a collapsible group (printed once the job has ended, so its title \
                    says how it ended); every group opened is closed, in every output mode. GitLab \
                    sections carry the job's own start and end times, and a failed job's is expanded. \
                    On GitHub a failed job adds an `::error` annotation, and job output is fenced with \
                    `::stop-commands::`, so a job cannot issue workflow commands. Markers go to stderr, \
                    written in order with the job's bytes. With CI=true, after 30 s without output one \
                    line says which jobs are still running.
                    """,
                effect: { parsed, value throws(UsageError) in
                    parsed.options.ci = try OptionValue.choice(value!, option: "--ci")
                }),
        ]
    }

    private static var reports: [OptionDeclaration] {
        [
            .init(
                ["joblog", "jl"], value: .file(), example: "--joblog jobs.log", section: .reports,
                help: ["GNU parallel's joblog: --joblog jobs.log (+FILE appends)"],
                manual: "GNU parallel's joblog; `+`FILE appends.",
                effect: { parsed, value throws(UsageError) in parsed.options.jobLog = .init(value!) }),
            .init(
                ["json"], value: .file(), example: "--json jobs.jsonl", section: .reports,
                help: ["one JSON object per job: --json jobs.jsonl"],
                manual: """
                    JSON Lines, one object per job: number, name, command, status, exit, signal, \
                    timed_out, attempts, start, wall, user, sys, max_rss, stdout_bytes, stderr_bytes; \
                    over hosts, host; where admission acted, requeued, waited and waited_for, suspended.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.json = value }),
            .init(
                ["junit"], value: .file(), example: "--junit report.xml", section: .reports,
                help: ["JUnit XML, one testcase per job: --junit report.xml"],
                manual: "JUnit XML, one testcase per job.",
                effect: { parsed, value throws(UsageError) in parsed.options.junit = value }),
            .init(
                ["results", "res"], value: .directory, example: "--results out", section: .reports,
                help: ["a folder per job with stdout, stderr, meta.json: --results out"],
                manual: """
                    A folder per job (DIR/N) with stdout, stderr and meta.json. Symbolic links are \
                    refused. The job folders of an earlier run in DIR are removed first, so a run never \
                    mixes with an older one; a DIR holding anything else is refused.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.results = value }),
            .init(
                ["timeline"], value: .file("FILE.svg"), example: "--timeline run.svg", section: .reports,
                help: ["a picture of the run, an SVG any browser opens: --timeline run.svg"],
                manual: """
                    At the end of the run (also when it is interrupted), a standalone SVG of it: one row per \
                    slot, each job attempt a bar from its start to its end, colored by how it ended (ok, \
                    failed, timed out, stopped), with a tooltip (number, label, command, status, wall, CPU, \
                    peak memory); retries are bars of their own, idle slot time shows as gaps, skipped jobs \
                    are listed, and with jobs that wait for jobs the critical path is outlined. The summary \
                    line is the caption. Labels and commands are escaped text, a command cut to 1,000 bytes. \
                    About 230 bytes a job attempt. The picture replaces the file whole at the end (written \
                    aside, then renamed): an earlier picture survives a run that is killed.
                    """,
                effect: { parsed, value throws(UsageError) in parsed.options.timeline = value }),
        ]
    }

    private static var information: [OptionDeclaration] {
        [
            .init(
                ["help"], short: "h", example: "--help", section: .information,
                help: ["this text"],
                manual: "Every form and option, with examples.",
                effect: { parsed, _ throws(UsageError) in parsed.answer = .help }),
            .init(
                ["version"], example: "--version", section: .information,
                help: ["the version"],
                manual: "The version.",
                effect: { parsed, _ throws(UsageError) in parsed.answer = .version }),
        ]
    }
}
