/// The Slurm allocation futurerun runs in (`salloc`, `sbatch`), as its environment describes it:
/// its nodes, the CPUs it holds on each, its tasks. A pure value: the node list is expanded by
/// `scontrol show hostnames` before (``SlurmCluster``).
package struct SlurmAllocation: Sendable, Equatable {
    package let jobID: String
    /// Each node and the CPUs the allocation holds there, in Slurm's order.
    package let nodes: [(name: String, cpus: Int)]
    /// `SLURM_NTASKS`, if the allocation asked for tasks.
    package let tasks: Int?
    /// CPUs a step (`--slurm-cpus`, else `SLURM_CPUS_PER_TASK`, else 1).
    package let cpusPerStep: Int

    package static func == (a: Self, b: Self) -> Bool {
        a.jobID == b.jobID && a.nodes.map(\.name) == b.nodes.map(\.name) && a.nodes.map(\.cpus) == b.nodes.map(\.cpus)
            && a.tasks == b.tasks && a.cpusPerStep == b.cpusPerStep
    }

    /// `--slurm-rate`'s default, steps a second: about what four `srun`s at once create on an idle
    /// controller, so that jobs of a tenth of a second keep four slots busy; far below the
    /// thousands of RPCs a second a `slurmctld` serves, so a run leaves it to the cluster's other
    /// users.
    package static let defaultStepRate = 100

    /// The variables read.
    package static let variables = [
        "SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_CPUS_PER_NODE", "SLURM_NTASKS", "SLURM_CPUS_PER_TASK",
    ]

    /// From the environment and the expanded node names; why not, as a usage error's words.
    package static func make(
        environment: [String: String], nodeNames: [String], cpusPerStep given: Int?
    ) -> Result<SlurmAllocation, SlurmProblem> {
        guard let jobID = environment["SLURM_JOB_ID"], !jobID.isEmpty else { return .failure(.outsideAllocation) }
        guard let perNode = cpusPerNode(environment["SLURM_JOB_CPUS_PER_NODE"] ?? ""), perNode.count == nodeNames.count,
            !nodeNames.isEmpty
        else {
            return .failure(
                .unreadable(
                    "SLURM_JOB_NODELIST=\(environment["SLURM_JOB_NODELIST"] ?? "") "
                        + "SLURM_JOB_CPUS_PER_NODE=\(environment["SLURM_JOB_CPUS_PER_NODE"] ?? "")"))
        }
        let cpus = given ?? Int(environment["SLURM_CPUS_PER_TASK"] ?? "") ?? 1
        return .success(
            SlurmAllocation(
                jobID: jobID, nodes: Array(zip(nodeNames, perNode)).map { (name: $0.0, cpus: $0.1) },
                tasks: Int(environment["SLURM_NTASKS"] ?? ""), cpusPerStep: max(1, cpus)))
    }

    /// Whether `list` is a Slurm host list: names of `[A-Za-z0-9._-]`, each with at most one
    /// bracket of numbers and ranges (`node[1-3,7]`), separated by commas. `vm[` is not one
    /// (`scontrol` would make a node `vm]` of it).
    package static func isNodeList(_ list: String) -> Bool {
        var inBracket = false
        var bracketText = ""
        var nameBytes = 0
        for character in list {
            switch character {
            case "[":
                guard !inBracket, nameBytes > 0 else { return false }
                inBracket = true
                bracketText = ""
            case "]":
                guard inBracket, isRangeList(bracketText) else { return false }
                inBracket = false
            case ",":
                if inBracket { bracketText.append(character) } else { nameBytes = 0 }
            default:
                if inBracket {
                    bracketText.append(character)
                } else {
                    guard character.isASCII, character.isLetter || character.isNumber || "._-".contains(character) else {
                        return false
                    }
                    nameBytes += 1
                }
            }
        }
        return !inBracket && !list.isEmpty && !list.hasSuffix(",")
    }

    /// `1-3,7`: numbers and ranges of numbers, comma-separated.
    private static func isRangeList(_ text: String) -> Bool {
        !text.isEmpty
            && text.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { part in
                let ends = part.split(separator: "-", omittingEmptySubsequences: false)
                return (1...2).contains(ends.count) && ends.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
            }
    }

    /// `SLURM_JOB_CPUS_PER_NODE`: `4(x2),2` is 4, 4, 2.
    static func cpusPerNode(_ text: String) -> [Int]? {
        var counts: [Int] = []
        for part in text.split(separator: ",") {
            if let open = part.firstIndex(of: "(") {
                guard let cpus = Int(part[..<open]), part.hasSuffix(")"), part[part.index(after: open)...].hasPrefix("x"),
                    let times = Int(part.dropLast()[part.index(open, offsetBy: 2)...]), times >= 1
                else { return nil }
                counts += Array(repeating: cpus, count: times)
            } else {
                guard let cpus = Int(part) else { return nil }
                counts.append(cpus)
            }
        }
        return counts.isEmpty ? nil : counts
    }

    /// Steps that fit at once: the allocation's tasks if it asked for them, else its CPUs divided
    /// by the CPUs a step (at least one).
    package var slots: Int {
        if let tasks, cpusPerStep == 1 || tasks * cpusPerStep <= nodes.reduce(0, { $0 + $1.cpus }) { return max(1, tasks) }
        return max(1, nodes.reduce(0) { $0 + $1.cpus / cpusPerStep })
    }

    /// The node of slot `slot` (1-based) of `width`: the nodes in turn, each up to the steps it
    /// holds, so that jobs spread over the nodes; past those, in turn again.
    package func node(ofSlot slot: Int) -> String {
        var capacity = nodes.map { max(1, $0.cpus / cpusPerStep) }
        var order: [String] = []
        while capacity.contains(where: { $0 > 0 }) {
            for index in nodes.indices where capacity[index] > 0 {
                order.append(nodes[index].name)
                capacity[index] -= 1
            }
        }
        return order[(slot - 1) % order.count]
    }
}

/// Why `--slurm` cannot run.
package enum SlurmProblem: Error, Equatable {
    case outsideAllocation
    case unreadable(String)
}
