import FutureProcess
import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput
import Glibc

/// What a run opens before its first job, as its configuration names it: the job list's file
/// (or stdin) and the job stream over it, the reports, the cache's store, what the way the jobs
/// run holds (the hosts' control directory); and the checks that the shell and `--workdir` are
/// there. All of a run's
/// I/O before the first job happens in ``open(_:facts:)``; every problem is a usage error (exit
/// 255), and nothing has run yet.
package struct RunResources {
    /// The jobs, read lazily: names, shard, resume and the reruns applied.
    package let source: JobPipeline
    package let reports: [Report]
    /// `--cache`: the store, opened (made).
    package let cache: JobCache?
    /// Where the jobs run, opened (``LaunchSite/open(dryRun:)``).
    package let site: any LaunchSite
    /// Said once at the start: the selection's notices (`--shard auto` outside CI, `--resume`'s
    /// skipped lines, `--rerun-failed`'s count), and the shard's.
    let startNotices: [String]

    /// Opens what `configuration` names. Blocks on the file system. The way the jobs run is
    /// opened last: nothing after it can fail, so what it holds (the hosts' control directory)
    /// never outlives a refused run (the run's end removes it).
    package static func open(_ configuration: RunConfiguration, facts: RunFacts) throws(UsageError) -> RunResources {
        let options = configuration.options
        // --nice: the jobs inherit futurerun's niceness.
        if let niceness = options.niceness { SystemFacts.lowerPriority(to: niceness) }
        try checkPrograms(configuration, runsHere: configuration.site.traits.someRunHere)
        let input = try openInput(options.source)
        let (selection, selectionNotices) = try selection(options, environment: facts.system.environment)
        // -m and -X spread the last arguments over the slots that will run: the width as capped.
        let origin: any JobOrigin =
            if case .blocks(let command, let file) = options.source {
                try BlockJobs(command: command, file: file, input: input ?? 0, options: options)
            } else {
                try JobSource(options: options, input: input, spreadOver: configuration.width)
            }
        let source = JobPipeline(origin, selection: selection)
        var reportOptions = options
        reportOptions.jobLog = configuration.jobLog
        // The step summary is written wherever the runner names one, GitHub's or another.
        let reports = try ReportSet.open(
            reportOptions, stepSummary: facts.system.environment["GITHUB_STEP_SUMMARY"],
            suite: selection.shard.map { "futurerun shard \($0.index)/\($0.count)" } ?? "futurerun")
        let cache = try configuration.cache.map { settings throws(UsageError) in
            try JobCache(
                settings, shell: options.shell, directory: absolute(options.workingDirectory ?? "."),
                values: SystemFacts.values(of: options.cacheVariables))
        }
        let site = try configuration.site.open(dryRun: options.dryRun)
        return RunResources(
            source: source, reports: reports, cache: cache, site: site,
            startNotices: selectionNotices + [source.shardNotice].compactMap { $0 })
    }

    /// The shell and `--workdir`, where jobs run here.
    private static func checkPrograms(_ configuration: RunConfiguration, runsHere: Bool) throws(UsageError) {
        let options = configuration.options
        guard runsHere else { return }
        if let directory = options.workingDirectory {
            var info = stat()
            guard stat(directory.systemPath, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw .invalidValue(
                    option: "--workdir", value: directory,
                    expected: "an existing directory (-C is --workdir here; GNU parallel's -C is futurerun's --colsep)")
            }
        }
        if case .failure(let error) = Command.locateExecutable(options.shell) {
            throw .unrunnableShell(path: options.shell, reason: String(cString: strerror(error.errno)))
        }
    }

    /// The descriptor to read job lines or arguments from, opened now so that a missing file is
    /// an error before anything runs.
    private static func openInput(_ source: Options.Source) throws(UsageError) -> Int32? {
        let file: String?
        switch source {
        case .commandLines(let path), .templateLines(_, let path), .blocks(_, let path): file = path
        case .commands, .template: return nil
        }
        guard let path = file, path != "-" else { return 0 }
        let descriptor = Glibc.open(path.systemPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }

    /// `path` made absolute, links resolved (as it is if it cannot be).
    private static func absolute(_ path: String) -> String {
        guard let resolved = realpath(path.systemPath, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
