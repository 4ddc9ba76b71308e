/// Everything the command line says, as values. Made by ``OptionParser``; read by the rest.
package struct Options: Sendable, Equatable {
    package enum Jobs: Sendable, Equatable {
        /// The CPUs this process may use (affinity mask and cgroup quota).
        case cpus
        /// Exactly N at once; `0` means no limit.
        case count(Int)
        /// This percentage of the usable CPUs (at least 1).
        case percentOfCPUs(Int)
        /// GNU parallel's `-j FILE`: one of the others, read from FILE at the start and again as
        /// each job ends (``Plan`` reads it; ``JobsFile``).
        case file(String)
    }

    package enum Color: String, CaseIterable, Sendable { case auto, always, never }
    package enum CIKind: String, CaseIterable, Sendable { case auto, github, gitlab, none }
    package enum Toggle: Sendable, Equatable { case auto, on, off }

    /// One argument list of `--each`.
    package enum ArgumentList: Sendable, Equatable {
        /// Words from the command line (after the template, or after `:::`).
        case words([[UInt8]])
        /// `:::: FILE`: one argument per line of FILE (`-`: stdin).
        case file(String)
    }

    /// Where the jobs come from.
    package enum Source: Sendable, Equatable {
        /// `:::`-separated commands on the command line.
        case commands([[UInt8]])
        /// One command per line of a file (`nil`: stdin).
        case commandLines(file: String?)
        /// A template and its argument lists: every combination, or paired with `--link`; a list
        /// whose index is in `linked` (given after `:::+` or `::::+`) is paired with the one before
        /// it, element by element, as GNU parallel pairs them.
        case template([UInt8], lists: [ArgumentList], linked: Set<Int>)
        /// A template with arguments read one per line (or NUL-separated) from a file (`nil`: stdin).
        case templateLines([UInt8], file: String?)
        /// `--pipe`, `--pipe-part`: one command, run once per block of the input (a file, `nil`:
        /// stdin), the block on its stdin.
        case blocks([UInt8], file: String?)
    }

    /// `--pipe` or `--pipe-part`, and how blocks are cut (``RecordBoundary``).
    package var pipe: PipeMode?
    package enum PipeMode: Sendable, Equatable {
        /// `--pipe`: blocks read from the input and fed to each job.
        case stream
        /// `--pipe-part`: byte ranges of a file, each read by its job through the kernel.
        case fileParts
    }
    /// `--block`: about this many bytes a block.
    package var blockSize: Int?
    package var recordEnd: [UInt8]?
    package var recordStart: [UInt8]?
    /// `--regexp`: `--recend` and `--recstart` are patterns.
    package var recordPatterns = false
    /// `--header N` with `--pipe`: the first N lines head every block.
    package var headerLines: Int?

    package var source: Source = .commandLines(file: nil)
    package var jobs: Jobs = .cpus
    package var shell = "/bin/sh"
    /// `--nice N`: the jobs' niceness (futurerun's own, which they inherit).
    package var niceness: Int32?
    /// `--shell` was given (else, in GNU's grammar, the shell GNU parallel would use).
    package var shellGiven = false
    package var nullSeparated = false
    /// `-d`: the byte that ends an input record instead of newline.
    package var delimiter: UInt8?
    /// `--plus`: GNU parallel's extra path strings (`{..}`, `{+.}`, …) are replacement strings.
    package var plus = false
    /// `--header :`: the first line (with `--colsep`) or each list's first word names the
    /// columns or lists, for `{name}` in the template.
    package var header = false
    /// `--tagstring`: what `--tag` puts before each line, with replacement strings.
    package var tagString: [UInt8]?
    /// `--shuf`: the whole input is read first and its jobs run in a random order.
    package var shuffle = false
    /// `-I`: a string that stands for `{}` in the template.
    package var replacement: [UInt8]?
    /// `-E`: an input record equal to this ends the input.
    package var endMarker: [UInt8]?

    /// The byte that ends an input record: `-d`'s, NUL with `-0`, else newline.
    var recordSeparator: UInt8 { delimiter ?? (nullSeparated ? 0 : 0x0A) }
    package var link = false
    /// `--trim`: blanks trimmed around each argument or column; `nil`: GNU parallel's default
    /// (both with `--colsep`, else none).
    package var trim: Trim?
    /// With `--live`: whole lines with `[label]`; `--line-buffer`: whole lines as they are; `-u`:
    /// bytes as they are read.
    package var liveMode: LiveMode = .labeledLines
    /// `-k` was given: with `--line-buffer`, lines keep the input order (GNU parallel's `-k --lb`).
    package var keepOrder = false

    /// Which side of an argument `--trim` takes blanks from.
    package enum Trim: Sendable, Equatable {
        case off, left, right, both
    }
    /// Whose command line this is: futurerun's own, or GNU parallel's (`--gnu`, or run as `parallel`).
    package var grammar: Grammar = .native
    package enum Grammar: Sendable, Equatable { case native, gnu }
    /// `{= … =}` is a Perl expression (GNU's grammar).
    package var perlExpressions: Bool { grammar == .gnu }
    /// GNU's `-q`/`--quote`: each word of the command is quoted, so the shell runs it as given.
    package var quotesCommand = false
    /// GNU's `-v`: the command lines on stdout (else, with `-v` or `--verbose`, on stderr).
    package var verboseOnStdout = false
    /// An empty input line is a job with an empty argument (GNU's grammar; `-r` skips them).
    package var emptyLinesAreJobs = false
    /// `-n N`: up to N arguments per job.
    package var maxArguments = 1
    /// `-n`/`-N` was given (with `--pipe`, `-N 1` is one record a block, not the default).
    package var maxArgumentsGiven = false
    /// `--memfree SIZE`: start a job only while SIZE bytes are available.
    package var memoryFree: Int?
    /// `--memsuspend SIZE`: suspend jobs while less than 2 × SIZE bytes are available.
    package var memorySuspend: Int?
    /// `--load N`: start a job only while fewer than N processes run (as `-j`: `100%` is the CPUs).
    package var load: Jobs?
    /// `--files`: each job's stdout saved in a file, whose name is printed instead.
    package var files = false
    /// `--xargs`, `-m`, `-X`: as many arguments per job as a command line holds.
    package var filling: Filling?

    /// How `--xargs`, `-m` and `-X` fill a job's command line.
    package struct Filling: Sendable, Equatable {
        /// `-m`, `-X`: the arguments left when input ends are spread over the job slots.
        package var spreads: Bool
        /// `-X`: a word holding a replacement string is repeated once per argument.
        package var repeatsWords: Bool

        package init(spreads: Bool, repeatsWords: Bool) {
            self.spreads = spreads
            self.repeatsWords = repeatsWords
        }
    }
    /// `--colsep REGEX`: each argument split into columns.
    package var columnSeparator: String?
    package var quiet = false
    package var verbose = false
    package var tag = false
    package var live = false
    package var names: [String] = []
    package var color: Color = .auto
    package var progress: Toggle = .auto
    package var quietSuccess = false
    package var ci: CIKind = .auto
    package var timeout: Duration?
    package var grace: Duration = .seconds(5)
    package var retries = 0
    package var halt: HaltPolicy = .never
    package var delay: Duration?
    package var workingDirectory: String?
    package var dryRun = false
    /// `--joblog [+]FILE`.
    package var jobLog: JobLogTarget?

    /// Where `--joblog` writes: its file, and whether to append (`+FILE`, or with `--resume`).
    package struct JobLogTarget: Sendable, Equatable {
        package var path: String
        package var appends: Bool

        package init(path: String, appends: Bool) {
            self.path = path
            self.appends = appends
        }

        /// GNU parallel's spelling: `+FILE` appends to FILE.
        package init(_ spec: String) {
            appends = spec.hasPrefix("+")
            path = appends ? String(spec.dropFirst()) : spec
        }
    }
    package var json: String?
    package var junit: String?
    package var results: String?
    package var timeline: String?
    /// `--shard K/N` (`nil` with `auto`, read from the CI's variables).
    package var shard: ShardChoice?
    package var shardTimings: String?
    /// `--resume` or `--resume-failed`.
    package var resume: ResumeLog.Mode?
    /// `--rerun-failed FILE`, each given: the reports whose failed jobs run again.
    package var rerunFailed: [String] = []
    /// `--cache DIR`.
    package var cache: String?
    /// `--cache-env NAME`, in order.
    package var cacheVariables: [String] = []
    /// `--cache-input GLOB`, templates, in order.
    package var cacheInputs: [[UInt8]] = []
    /// `--cache-failures`.
    package var cacheFailures = false
    /// `--cache-max SIZE`, in bytes.
    package var cacheLimit: Int?
    /// `--explain`.
    package var explain = false
    /// `-S/--hosts`, in order (`--hosts-file` adds to them when the run is planned).
    package var hosts: [HostSpec] = []
    package var hostsFile: String?
    /// `--ssh`, split into words.
    package var ssh: [String]?
    /// `--env NAME`, in order.
    package var forwardedVariables: [String] = []
    /// `--slurm`: each job a step of the Slurm allocation futurerun runs in.
    package var slurm = false
    /// `--slurm-cpus C`: CPUs a step.
    package var slurmCPUs: Int?
    /// `--slurm-rate N`: steps created a second, at most.
    package var slurmRate: Int?
    /// `--slurm-slots`: a long-lived step per slot runs its jobs in turn.
    package var slurmSlots = false

    package enum ShardChoice: Sendable, Equatable {
        case fixed(Shard)
        /// From the environment's node variables; `count`: `auto/N`'s N.
        case auto(count: Int?)
    }

    package init() {}
}

extension Options.Jobs {
    /// How many jobs run at once on a machine with `cpus` usable CPUs: N (`0`: no limit,
    /// `Int.max`), N % of the CPUs (at least 1), or as many as the CPUs.
    package func width(cpus: Int) -> Int {
        switch self {
        case .cpus: cpus
        case .count(0): Int.max
        case .count(let count): count
        case .percentOfCPUs(let percent):
            max(1, cpus.multipliedReportingOverflow(by: percent).overflow ? Int.max : cpus * percent / 100)
        // The plan reads the file before anything asks; unread, it is as the default.
        case .file: cpus
        }
    }
}

/// When to stop starting (and possibly running) jobs early: GNU parallel's `--halt`.
package struct HaltPolicy: Sendable, Equatable {
    package enum Urgency: Sendable, Equatable {
        /// Run everything.
        case never
        /// Start nothing new; let running jobs finish.
        case soon
        /// Start nothing new and stop running jobs.
        case now
    }

    package enum Trigger: Sendable, Equatable {
        /// After this many failed jobs.
        case failures(Int)
        /// After this percentage of all the jobs failed.
        case failurePercent(Int)
        /// After this many succeeded jobs.
        case successes(Int)
        /// After this percentage of all the jobs succeeded.
        case successPercent(Int)
        /// After this many jobs ended, however.
        case done(Int)
        /// After this percentage of all the jobs ended.
        case donePercent(Int)
    }

    package var urgency: Urgency
    package var trigger: Trigger

    package static let never = HaltPolicy(urgency: .never, trigger: .failures(1))
    /// `--fail-fast`: at the first failure, stop everything.
    package static let failFast = HaltPolicy(urgency: .now, trigger: .failures(1))
}
