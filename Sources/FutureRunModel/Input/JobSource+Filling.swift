/// `--xargs`, `-m`, `-X`: each job's command line filled with as many arguments as it holds.
extension JobSource {
    /// What filling keeps between jobs (under the source's lock).
    package struct FillingState {
        /// Arguments read but not yet given to a job, the next one last.
        var unread: [Item] = []
        /// After `-m`/`-X` spread the arguments left at the end of input: how many each job gets.
        var perJob: Int?
        package var spread = false
    }

    /// The bytes a filled command line may take: the command limit less room for the job number
    /// and slot, which are known only when the job is numbered and started.
    static var fillLimit: Int { commandLimit - 4096 }

    /// The next job's arguments: as many as fit in ``fillLimit`` (and `-n`), at least one; at the end
    /// of input, with `-m`/`-X`, spread evenly over `spreadOver` jobs as GNU parallel does.
    func fillItem(_ state: inout State, number: Int) -> Item? {
        let template = template!
        var batch: [[UInt8]] = []
        var length = 0
        var ended = false
        let cap = min(maxArguments > 1 ? maxArguments : .max, state.filling.perJob ?? .max)
        while batch.count < cap {
            guard let item = state.filling.unread.popLast() ?? nextItem(&state.generator) else {
                ended = true
                break
            }
            guard case .arguments(let arguments) = item, let argument = arguments.first else {
                if batch.isEmpty { return item }
                state.filling.unread.append(item)
                break
            }
            let cost = Self.fillCost(of: argument, at: batch.count, in: template, number: number)
            if !batch.isEmpty, length + cost > Self.fillLimit {
                state.filling.unread.append(item)
                break
            }
            batch.append(argument)
            length += cost
        }
        if !ended, filling?.spreads == true, !state.filling.spread, state.filling.unread.isEmpty {
            // As GNU parallel: a full line at the end of input spreads too (this reads one ahead).
            if let ahead = nextItem(&state.generator) { state.filling.unread.append(ahead) } else { ended = true }
        }
        if ended, filling?.spreads == true, !state.filling.spread {
            state.filling.spread = true
            if batch.count > 1 {
                let slots = min(spreadOver, batch.count)
                let perJob = (batch.count + slots - 1) / slots
                state.filling.perJob = perJob
                state.filling.unread += batch[perJob...].reversed().map { .arguments([$0]) }
                batch.removeLast(batch.count - perJob)
            }
        }
        // Each argument's cost is measured alone: should the whole line be longer, the most that
        // fit is found by halving, and the rest goes to the next job.
        func fits(_ count: Int) -> Bool {
            template.expand(arguments: Array(batch[..<count]), jobNumber: number, slot: 1).count <= Self.fillLimit
        }
        if batch.count > 1, !fits(batch.count) {
            var (low, high) = (1, batch.count)  // fits(low), not fits(high)
            while high - low > 1 {
                let middle = (low + high) / 2
                if fits(middle) { low = middle } else { high = middle }
            }
            state.filling.unread += batch[low...].reversed().map { .arguments([$0]) }
            batch.removeLast(batch.count - low)
        }
        return batch.isEmpty ? nil : .arguments(batch)
    }

    /// The bytes `argument` adds to a filled line as its argument number `position` (from 0): the
    /// whole line with it alone, if it is the first; else what a second copy of it adds (a
    /// separator, its quoted form at each `{}`, its variables' assignments and references with
    /// the numbers they will have, or with `-X` a repeated word).
    private static func fillCost(of argument: [UInt8], at position: Int, in template: Template, number: Int) -> Int {
        let firstVariable = 1 + max(0, position - 1) * template.variablesPerArgument
        let once = template.expand(arguments: [argument], jobNumber: number, slot: 1, firstVariable: firstVariable).count
        if position == 0 { return once }
        let twice = template.expand(arguments: [argument, argument], jobNumber: number, slot: 1, firstVariable: firstVariable)
        return twice.count - once
    }
}
