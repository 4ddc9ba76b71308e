/// Why a replacement string cannot be kept data where it stands, and what to write instead.
package struct SiteRefusal: Sendable, Equatable {
    var construct: String
    var hint: String
}

/// The data a word or a region of a template carries: the replacement strings ("holes", numbered
/// in the template's order) inside it, nested ones too, and the variables it expands.
package struct CarriedData: Equatable {
    var holes: [Int] = []
    package var names: Set<String> = []

    package var isEmpty: Bool { holes.isEmpty && names.isEmpty }

    package static func + (left: CarriedData, right: CarriedData) -> CarriedData {
        CarriedData(holes: left.holes + right.holes, names: left.names.union(right.names))
    }
}

/// What ``ShellLexer`` learns of a template: a refusal for each replacement that stands where it
/// could be read as code or a name, and how arguments flow through the template's variables.
///
/// Data flow is followed through assignments, `for` loops, `read`, `${x:=…}`, `printf -v`,
/// `set --` and the template's own functions (their positional parameters), without regard to
/// order: a variable that ever holds an argument must never be evaluated (arithmetic, a subscript,
/// `${!x}`, `[[ -v ]]`, a builtin that takes names, a command whose name is not known).
package struct SiteAnalysis {
    package private(set) var refusals: [Int: SiteRefusal] = [:]
    /// Holes that must be written as references, never as bare words: where the shell decides
    /// what a word is while it parses (inside `[[ ]]`, an operator written bare is an operator).
    private(set) var referencesOnly: Set<Int> = []
    private var collectors: [CarriedData] = []
    private var flows: [String: CarriedData] = [:]
    private var evaluations: [(data: CarriedData, refusal: SiteRefusal)] = []
    /// Variables whose value is evaluated when assigned (`declare -i`, `-n`, `-a`, prompts).
    private var evaluatedOnAssignment = CommandRole.evaluatedVariables
    private var assignments: [(name: String, data: CarriedData)] = []
    private var functions: Set<String> = []
    private var calls: [(name: String, data: CarriedData)] = []
    private var allHoles: [Int] = []
    private var readTargets: Set<String> = []

    // MARK: What the lexer meets

    /// A replacement string, at hole number `index`.
    mutating func hole(_ index: Int) {
        allHoles.append(index)
        for level in collectors.indices { collectors[level].holes.append(index) }
    }

    /// An expansion of the variable `name` (or `$1`, `$@`).
    mutating func reference(_ name: String) {
        for level in collectors.indices { collectors[level].names.insert(name) }
    }

    /// Starts collecting what a word or region carries; ``endCollecting()`` returns it.
    mutating func beginCollecting() { collectors.append(CarriedData()) }

    mutating func endCollecting() -> CarriedData { collectors.removeLast() }

    /// Refuses the holes of `data` now (the first reason given for a hole stands).
    mutating func refuse(_ holes: [Int], _ refusal: SiteRefusal) {
        for hole in holes where refusals[hole] == nil { refusals[hole] = refusal }
    }

    /// A place where the shell reads `data` as code or a name: its holes are refused, and so are
    /// those that reach it through a variable.
    mutating func evaluates(_ data: CarriedData, _ refusal: SiteRefusal) {
        refuse(data.holes, refusal)
        if !data.names.isEmpty { evaluations.append((data, refusal)) }
    }

    mutating func writeAsReferences(_ holes: [Int]) { referencesOnly.formUnion(holes) }

    /// `name=VALUE`, `for name in …`, `${name:=…}`: `name` holds what `data` carries.
    mutating func assign(_ name: String, _ data: CarriedData) {
        flows[name, default: CarriedData()] = flows[name, default: CarriedData()] + data
        assignments.append((name, data))
    }

    /// `declare -i name`, `declare -n name`, …: an assignment to `name` is evaluated.
    mutating func evaluatesAssignments(to name: String) { evaluatedOnAssignment.insert(name) }

    /// `read name`: it holds whatever the job reads, which may be an argument.
    package mutating func reads(into name: String) { readTargets.insert(name) }

    mutating func defineFunction(_ name: String) { functions.insert(name) }

    /// A command named `name` run with arguments carrying `data`: if the template defines a
    /// function of that name, its positional parameters hold the data.
    mutating func call(_ name: String, with data: CarriedData) { calls.append((name, data)) }

    // MARK: The verdict

    /// The refusals once the data flow is followed to its end.
    package mutating func finish() {
        for target in readTargets { assign(target, CarriedData(holes: allHoles)) }
        for call in calls where functions.contains(call.name) { setPositionalParameters(call.data) }
        let reaching = holesReachingEachVariable()
        for (data, refusal) in evaluations {
            for name in data.names.sorted() {
                guard let holes = reaching[name] else { continue }
                refuse(holes.sorted(), Self.through(name, refusal))
            }
        }
        for (name, data) in assignments where evaluatedOnAssignment.contains(name) {
            let refusal = SiteRefusal(
                construct: "an assignment to \(name), whose value the shell evaluates",
                hint:
                    "assign the argument to a variable of your own, not to a prompt, an integer (-i), a reference (-n) or an array"
            )
            refuse(data.holes, refusal)
            for name in data.names.sorted() { refuse((reaching[name] ?? []).sorted(), Self.through(name, refusal)) }
        }
    }

    /// `set -- …` or a function call: `$1`…`$9`, `$@` and `$*` hold what `data` carries.
    mutating func setPositionalParameters(_ data: CarriedData) {
        for name in (1...9).map(String.init) + ["@", "*"] { assign(name, data) }
    }

    private func holesReachingEachVariable() -> [String: Set<Int>] {
        var reaching: [String: Set<Int>] = flows.mapValues { Set($0.holes) }
        var changed = true
        while changed {
            changed = false
            for (name, data) in flows {
                for source in data.names {
                    guard let holes = reaching[source], !holes.isSubset(of: reaching[name] ?? []) else { continue }
                    reaching[name, default: []].formUnion(holes)
                    changed = true
                }
            }
        }
        return reaching.filter { !$0.value.isEmpty }
    }

    private static func through(_ name: String, _ refusal: SiteRefusal) -> SiteRefusal {
        let shown = Int(name) != nil || name == "@" || name == "*" ? "$\(name)" : name
        return SiteRefusal(construct: "\(refusal.construct), which it reaches through the variable \(shown)", hint: refusal.hint)
    }
}
