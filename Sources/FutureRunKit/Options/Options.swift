/// Everything the command line says, as values. Made by ``OptionParser``; read by the rest.
public struct Options: Sendable, Equatable {
    public enum Jobs: Sendable, Equatable {
        /// The CPUs this process may use (affinity mask and cgroup quota).
        case cpus
        /// Exactly N at once; `0` means no limit.
        case count(Int)
        /// This percentage of the usable CPUs (at least 1).
        case percentOfCPUs(Int)
    }

    public enum Color: String, CaseIterable, Sendable { case auto, always, never }
    public enum CIKind: String, CaseIterable, Sendable { case auto, github, gitlab, none }
    public enum Toggle: Sendable, Equatable { case auto, on, off }

    /// One argument list of `--each`.
    public enum ArgumentList: Sendable, Equatable {
        /// Words from the command line (after the template, or after `:::`).
        case words([[UInt8]])
        /// `:::: FILE`: one argument per line of FILE (`-`: stdin).
        case file(String)
    }

    /// Where the jobs come from.
    public enum Source: Sendable, Equatable {
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
    }

    public var source: Source = .commandLines(file: nil)
    public var jobs: Jobs = .cpus
    public var shell = "/bin/sh"
    public var nullSeparated = false
    /// `-d`: the byte that ends an input record instead of newline.
    public var delimiter: UInt8?
    /// `--plus`: GNU parallel's extra path strings (`{..}`, `{+.}`, …) are replacement strings.
    public var plus = false
    /// `--header :`: the first line (with `--colsep`) or each list's first word names the
    /// columns or lists, for `{name}` in the template.
    public var header = false
    /// `--tagstring`: what `--tag` puts before each line, with replacement strings.
    public var tagString: [UInt8]?
    /// `--shuf`: the whole input is read first and its jobs run in a random order.
    public var shuffle = false
    /// `-I`: a string that stands for `{}` in the template.
    public var replacement: [UInt8]?
    /// `-E`: an input record equal to this ends the input.
    public var endMarker: [UInt8]?

    /// The byte that ends an input record: `-d`'s, NUL with `-0`, else newline.
    var recordSeparator: UInt8 { delimiter ?? (nullSeparated ? 0 : 0x0A) }
    public var link = false
    /// `--trim`: blanks trimmed around each argument or column; `nil`: GNU parallel's default
    /// (both with `--colsep`, else none).
    public var trim: Trim?
    /// With `--live`: whole lines with `[label]`; `--line-buffer`: whole lines as they are; `-u`:
    /// bytes as they are read.
    var liveMode: LivePrinter.Mode = .labeledLines

    /// Which side of an argument `--trim` takes blanks from.
    public enum Trim: Sendable, Equatable {
        case off, left, right, both
    }
    /// `-n N`: up to N arguments per job.
    public var maxArguments = 1
    /// `--files`: each job's stdout saved in a file, whose name is printed instead.
    public var files = false
    /// `--xargs`, `-m`, `-X`: as many arguments per job as a command line holds.
    var filling: Filling?

    /// How `--xargs`, `-m` and `-X` fill a job's command line.
    struct Filling: Sendable, Equatable {
        /// `-m`, `-X`: the arguments left when input ends are spread over the job slots.
        var spreads: Bool
        /// `-X`: a word holding a replacement string is repeated once per argument.
        var repeatsWords: Bool
    }
    /// `--colsep REGEX`: each argument split into columns.
    public var columnSeparator: String?
    public var quiet = false
    public var verbose = false
    public var tag = false
    public var live = false
    public var names: [String] = []
    public var color: Color = .auto
    public var progress: Toggle = .auto
    public var quietSuccess = false
    public var ci: CIKind = .auto
    public var timeout: Duration?
    public var grace: Duration = .seconds(5)
    public var retries = 0
    public var halt: HaltPolicy = .never
    public var delay: Duration?
    public var workingDirectory: String?
    public var dryRun = false
    /// `--joblog [+]FILE`.
    var jobLog: JobLogTarget?

    /// Where `--joblog` writes: its file, and whether to append (`+FILE`, or with `--resume`).
    struct JobLogTarget: Sendable, Equatable {
        var path: String
        var appends: Bool

        init(path: String, appends: Bool) {
            self.path = path
            self.appends = appends
        }

        /// GNU parallel's spelling: `+FILE` appends to FILE.
        init(_ spec: String) {
            appends = spec.hasPrefix("+")
            path = appends ? String(spec.dropFirst()) : spec
        }
    }
    public var json: String?
    public var junit: String?
    public var results: String?
    public var timeline: String?
    /// `--shard K/N` (`nil` with `auto`, read from the CI's variables).
    public var shard: ShardChoice?
    public var shardTimings: String?
    /// `--resume` or `--resume-failed`.
    var resume: ResumeLog.Mode?
    /// `-S/--hosts`, in order (`--hosts-file` adds to them when the run is planned).
    public var hosts: [HostSpec] = []
    public var hostsFile: String?
    /// `--ssh`, split into words.
    public var ssh: [String]?
    /// `--env NAME`, in order.
    public var forwardedVariables: [String] = []

    public enum ShardChoice: Sendable, Equatable {
        case fixed(Shard)
        case auto
    }

    public init() {}
}

extension Options.Jobs {
    /// How many jobs run at once on a machine with `cpus` usable CPUs: N (`0`: no limit,
    /// `Int.max`), N % of the CPUs (at least 1), or as many as the CPUs.
    public func width(cpus: Int) -> Int {
        switch self {
        case .cpus: cpus
        case .count(0): Int.max
        case .count(let count): count
        case .percentOfCPUs(let percent):
            max(1, cpus.multipliedReportingOverflow(by: percent).overflow ? Int.max : cpus * percent / 100)
        }
    }
}

/// When to stop starting (and possibly running) jobs early: GNU parallel's `--halt`.
public struct HaltPolicy: Sendable, Equatable {
    public enum Urgency: Sendable, Equatable {
        /// Run everything.
        case never
        /// Start nothing new; let running jobs finish.
        case soon
        /// Start nothing new and stop running jobs.
        case now
    }

    public enum Trigger: Sendable, Equatable {
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

    public var urgency: Urgency
    public var trigger: Trigger

    public static let never = HaltPolicy(urgency: .never, trigger: .failures(1))
    /// `--fail-fast`: at the first failure, stop everything.
    public static let failFast = HaltPolicy(urgency: .now, trigger: .failures(1))
}
