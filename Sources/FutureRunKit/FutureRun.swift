import Dispatch
import FutureCore
import FutureProcess
import FutureRunEngine
import FutureRunModel
import FutureRunOptions
import FutureRunOutput
import Glibc

/// The futurerun program: parse, plan, run, report, exit status. `main.swift` calls ``main(_:)``.
public enum FutureRun {
    /// Readies signal handling (``SignalWatcher/prepare()``): call it first, while the process has
    /// a single thread.
    public static func prepare() {
        SignalWatcher.prepare()
    }

    /// Runs futurerun with `arguments` (without the program name) and returns its exit status.
    /// Call ``prepare()`` before, while the process has a single thread.
    /// Run under the name `parallel` (`programName`), it reads GNU parallel's grammar.
    public static func main(_ arguments: [[UInt8]], programName: String = "futurerun") -> Int32 {
        let options: Options
        let grammar: Options.Grammar = programName.split(separator: "/").last == "parallel" ? .gnu : .native
        do {
            switch try OptionParser.parse(arguments, grammar: grammar) {
            case .help: return write(Help.text, to: .output)
            case .version: return write(Help.version + "\n", to: .output)
            case .run(let parsed): options = parsed
            }
        } catch {
            return fail(error.description)
        }
        SignalWatcher.start()
        do {
            let plan = try Plan(options: options)
            if options.dryRun { return dryRun(plan) }
            return run(plan)
        } catch {
            return fail(error.description)
        }
    }

    /// `futurerun: <message>` on stderr; status 255.
    package static func fail(_ message: String) -> Int32 {
        _ = try? StandardStream.error.write("futurerun: \(SafeText.sanitize(ArgumentText.display(message)))\n")
        return 255
    }

    private static func write(_ text: String, to stream: StandardStream) -> Int32 {
        do {
            try stream.write(text)
            return 0
        } catch {
            return 255
        }
    }

    /// `--dry-run`: the command lines, one per line on stdout; nothing runs.
    private static func dryRun(_ plan: Plan) -> Int32 {
        for notice in plan.startNotices { _ = try? StandardStream.error.write("futurerun: \(notice)\n") }
        var number = 0
        while let job = plan.source.next() {
            // A job that waits for others shows its header as a comment: the lines, in the input's
            // (and so the graph's) order, stay runnable one after another.
            let line = job.invalidReason.map { "# job \(job.number): \($0)" } ?? Self.withHeaderComment(job)
            number += 1
            do { try StandardStream.output.write(line + "\n") } catch { return 255 }
        }
        return 0
    }

    /// The job's command line with its header as a comment at the end of its first line: a
    /// here-document's body and delimiter line, which follow, stay as they are.
    static func withHeaderComment(_ job: Job) -> String {
        let command = job.displayCommand
        guard let header = job.header else { return command }
        guard let newline = command.firstIndex(of: "\n") else { return command + "  # " + header.text }
        return command[..<newline] + "  # " + header.text + command[newline...]
    }

    private static func run(_ plan: Plan) -> Int32 {
        let wakeUp = DispatchSemaphore(value: 0)
        var notify: (@Sendable () -> Void)?
        if plan.options.live { notify = { _ = wakeUp.signal() } }
        let notices = Notices()
        // The run's one engine: every job, ssh connection, Slurm step and warm shell runs on it.
        let engine = ProcessEngine.shared
        let scheduler = Scheduler(
            settings: plan.configuration.scheduler, source: plan.source,
            launcher: plan.makeLauncher(engine: engine, notices: notices), engine: engine, notices: notices,
            cache: plan.cache, notify: notify)
        let console = Console(
            out: .output, err: .error, style: Style(colors: plan.configuration.colors), progress: plan.configuration.showsProgress
        )
        let reporter = JobReporter(
            console: console, settings: plan.configuration.reporter, reports: plan.reports, source: plan.source,
            cache: plan.cache.map(CacheRecorder.init), running: { scheduler.runningJobs() },
            heldBack: { scheduler.heldBack() }, notices: { scheduler.takeNotices() })
        for notice in plan.startNotices + (plan.configuration.widthNotice.map { [$0] } ?? []) {
            try? console.say("futurerun: " + notice)
        }
        let grace = DurationFormat.format(plan.options.grace)
        SignalWatcher.handle(
            stop: { signal in
                let running = scheduler.runningJobs().count
                scheduler.stopAll()
                // Input that is still being read (a pipe kept open, `tail -f`) is abandoned:
                // the run ends with what was read, and says so.
                scheduler.abandonInput(
                    notice: "input cut by SIG\(SignalName.of(signal) ?? "\(signal)"): lines not read yet are not run")
                if running > 0 {
                    scheduler.announce(
                        "stopping \(running) running job\(running == 1 ? "" : "s") (SIGTERM, then SIGKILL after \(grace)); "
                            + "interrupt again (Ctrl-C) to kill them now")
                }
            },
            kill: {
                scheduler.announce("killing the running jobs now (SIGKILL)")
                engine.signalRunningGroups(SIGKILL)
            },
            drain: {
                let running = scheduler.runningJobs().count
                scheduler.startNothingNew()
                scheduler.abandonInput(notice: "input cut by SIGHUP: lines not read yet are not run")
                scheduler.announce(
                    "SIGHUP: no new job starts; waiting for \(running) running job\(running == 1 ? "" : "s") "
                        + "(SIGTERM or another SIGHUP stops them now)")
            },
            report: {
                let running = scheduler.runningJobs()
                let list = running.map { "\(SafeText.sanitize($0.label)) (\(DurationFormat.format($0.since)))" }
                scheduler.announce(
                    running.isEmpty ? "no job is running" : "running: " + list.joined(separator: ", "))
            })

        // Only now: a stop signal that comes before the run's handlers are set ends futurerun at
        // once (SignalWatcher), which would leave a job already started running on, orphaned.
        engine.startGuardian()
        scheduler.start()

        var outputError: OutputError?
        do throws(OutputError) {
            if plan.options.live {
                try LivePrinter(
                    scheduler: scheduler, reporter: reporter, wakeUp: wakeUp, mode: plan.options.liveMode, tag: plan.options.tag
                ).run()
            } else {
                try OrderedPrinter(
                    scheduler: scheduler, reporter: reporter, streamsLive: plan.configuration.streamsLive, tag: plan.options.tag
                ).run()
            }
            try reporter.close()
        } catch {
            outputError = error
            scheduler.stopAll()
            scheduler.waitForRunningJobs(upTo: plan.options.grace + .seconds(1))
        }

        scheduler.finish()
        if let notice = plan.source.inputNotice { try? console.say("futurerun: " + notice) }
        let signal = SignalWatcher.receivedSignal
        if signal != 0 { return 128 + signal }
        switch outputError {
        case .brokenPipe?: return 128 + SIGPIPE
        case .failed?, .noSpillSpace?: return fail(outputError!.message)
        case nil: break
        }
        if let readError = plan.source.readError {
            return fail("reading the job list failed: \(String(cString: strerror(readError)))")
        }
        for error in reporter.errors { _ = fail(error) }
        if !reporter.errors.isEmpty { return 255 }
        if let status = scheduler.halted.exitStatus { return status }
        return reporter.tally.exitStatus
    }
}
