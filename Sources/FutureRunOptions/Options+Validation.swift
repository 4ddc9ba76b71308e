import FutureRunModel

extension Options {
    /// `--cache`'s companions need it; `--rerun-failed` picks jobs as `--resume` does.
    private func checkCacheCombinations() throws(UsageError) {
        let options = self
        if options.cache == nil {
            for (option, given) in [
                ("--cache-env", !options.cacheVariables.isEmpty), ("--cache-input", !options.cacheInputs.isEmpty),
                ("--cache-failures", options.cacheFailures), ("--cache-max", options.cacheLimit != nil),
                ("--explain", options.explain),
            ] where given {
                throw .needsOption(
                    option: option, needs: "--cache DIR", example: "futurerun --cache .futurerun-cache \(option) ...")
            }
        } else if options.pipe != nil {
            throw .conflictingOptions("--cache", "--pipe (a block is no file the key could cover)")
        }
        if !options.rerunFailed.isEmpty, let resume = options.resume {
            throw .conflictingOptions("--rerun-failed", resume.option)
        }
    }

    /// Every conflict of one option with another, and every option that needs another: checked
    /// once, here, on the options alone (nothing is read). The parser calls it. The options of a
    /// way to run jobs (`--slurm`, `-S`) are its own (``LaunchKind/check(_:)``), checked first
    /// when the run's facts are gathered; what the machine or a file must say, then.
    func validate() throws(UsageError) {
        let options = self
        if options.shuffle, let resume = options.resume { throw .conflictingOptions("--shuf", resume.option) }
        try checkPipeCombinations()
        try checkCacheCombinations()
        try checkSelectionCombinations()
        let listCount: Int? =
            switch options.source {
            case .template(_, let lists, _): lists.count
            case .templateLines: 1
            case .commands, .commandLines, .blocks: nil
            }
        if options.maxArguments != 1, options.pipe == nil {
            guard let listCount else {
                throw .needsOption(
                    option: "-n/--max-args", needs: "--each TEMPLATE", example: "futurerun -n 10 --each 'echo {}' *.log")
            }
            guard listCount == 1 else { throw .needsOneList("-n/--max-args") }
        }
        if options.filling != nil {
            guard let listCount else {
                throw .needsOption(
                    option: "--xargs/-m/-X", needs: "--each TEMPLATE", example: "futurerun -X --each 'cp -t dst {}' *.log")
            }
            guard listCount == 1 else { throw .needsOneList("--xargs/-m/-X") }
            if options.columnSeparator != nil { throw .conflictingOptions("--colsep", "--xargs/-m/-X") }
        }
        if options.columnSeparator != nil {
            guard let listCount else {
                throw .needsOption(
                    option: "--colsep", needs: "--each TEMPLATE", example: "futurerun --colsep , --each 'echo {2}' < table.csv")
            }
            guard listCount == 1 else { throw .needsOneList("--colsep") }
            if options.maxArguments != 1 { throw .conflictingOptions("--colsep", "-n/--max-args") }
        }
    }

    /// The options of `--pipe` and `--pipe-part`, only with them; theirs that do not go together.
    private func checkPipeCombinations() throws(UsageError) {
        let options = self
        guard let mode = options.pipe else {
            let given: [(String, Bool)] = [
                ("--block", options.blockSize != nil), ("--recend", options.recordEnd != nil),
                ("--recstart", options.recordStart != nil), ("--regexp", options.recordPatterns),
                ("--header N", options.headerLines != nil),
            ]
            if let (option, _) = given.first(where: \.1) {
                throw .needsOption(
                    option: option, needs: "--pipe or --pipe-part", example: "futurerun --pipe --block 10M wc -l < big.txt")
            }
            return
        }
        let option = mode == .stream ? "--pipe" : "--pipe-part"
        if options.shuffle { throw .conflictingOptions("--shuf", option) }
        if options.filling != nil { throw .conflictingOptions("--xargs/-m/-X", option) }
        if options.columnSeparator != nil { throw .conflictingOptions("--colsep", option) }
        if options.maxArguments == 0 { throw .invalidValue(option: "-N", value: "0", expected: "at least 1 record a block") }
        if mode == .fileParts, options.maxArgumentsGiven {
            throw .conflictingOptions("-N", "--pipe-part (it cuts by size, without reading the file through)")
        }
        if mode == .fileParts, options.header || options.headerLines != nil {
            throw .conflictingOptions("--header", "--pipe-part (not supported yet: use --pipe)")
        }
        for pattern in [options.recordEnd, options.recordStart].compactMap({ $0 }) where options.recordPatterns {
            guard RecordBoundary.compiles(pattern) else {
                throw .invalidValue(
                    option: "--regexp", value: String(decoding: pattern, as: UTF8.self), expected: "a regular expression")
            }
        }
    }

    /// `--shard-timings` balances shards; `--resume` reads the joblog.
    private func checkSelectionCombinations() throws(UsageError) {
        if shardTimings != nil, shard == nil {
            throw .needsOption(
                option: "--shard-timings", needs: "--shard K/N", example: "futurerun --shard 2/4 --shard-timings last.jsonl ...")
        }
        if let mode = resume, jobLog?.path == nil {
            throw .needsOption(
                option: mode.option, needs: "--joblog FILE", example: "futurerun \(mode.option) --joblog jobs.log -a jobs.txt")
        }
    }
}
