import FutureRunModel

/// One option of futurerun, declared once: its names, the value it takes, how it is explained and
/// completed, and what it does to the parse. The parser, `--help`, the man page's OPTIONS section
/// and the bash, zsh and fish completions are all made from ``OptionDeclaration/all``.
package struct OptionDeclaration: Sendable {
    /// Where the option is listed in `--help` and the man page.
    package enum Section: String, CaseIterable, Sendable {
        case input = "Input"
        case running = "Running"
        case hosts = "Host"
        case ci = "CI"
        case output = "Output"
        case reports = "Report"
        case information = "Other"
    }

    /// What a shell should offer for the option's value.
    package enum Completion: Sendable, Equatable {
        /// Nothing in particular (a number, a duration, free text).
        case none
        case file
        case directory
        /// A program name (from `PATH`) or path.
        case program
        /// One of these words.
        case words([String])
    }

    /// A value option's value: the name shown in usage (`N`, `FILE`) and how to complete it.
    package struct Value: Sendable {
        package let placeholder: String
        package let completion: Completion
    }

    /// What reading the option does to the parse: the value is `nil` for a switch.
    package typealias Effect = @Sendable (inout ParsedOptions, _ value: String?) throws(UsageError) -> Void

    /// Long names without the dashes; the first is the one shown, the others are aliases.
    let longNames: [String]
    let shortName: Character?
    /// Further one-letter spellings, for other tools' habits (`-P` for `-j`, as xargs spells it).
    let shortAliases: [Character]
    /// `nil` for a switch.
    package let value: Value?
    /// An example of its use, as typed: shown when the value is missing.
    package let example: String
    /// The `--help` text: one or more lines of at most about 70 characters.
    package let help: [String]
    /// The man page text: plain sentences; `` `x` `` marks a literal (bold in the man page).
    let manual: String
    let section: Section
    let effect: Effect

    /// Every one-letter spelling: the short name, then its aliases.
    var shortNames: [Character] { (shortName.map { [$0] } ?? []) + shortAliases }

    package init(
        _ longNames: [String], short: Character? = nil, shortAliases: [Character] = [], value: Value? = nil, example: String,
        section: Section,
        help: [String], manual: String, effect: @escaping Effect
    ) {
        self.longNames = longNames
        self.shortName = short
        self.shortAliases = shortAliases
        self.value = value
        self.example = example
        self.help = help
        self.manual = manual
        self.section = section
        self.effect = effect
    }

    /// `--jobs` (the name shown).
    var displayName: String { "--" + longNames[0] }

    /// The first help line up to its example (after a word and `: `): a one-line description for
    /// completion menus.
    package var summary: String {
        let line = help[0]
        var searchFrom = line.startIndex
        while let colon = line[searchFrom...].firstRange(of: ": ") {
            if colon.lowerBound > line.startIndex, line[line.index(before: colon.lowerBound)] != ":" {
                return String(line[..<colon.lowerBound])
            }
            searchFrom = colon.upperBound
        }
        return line
    }
}

extension OptionDeclaration.Value {
    package static func file(_ placeholder: String = "FILE") -> Self { Self(placeholder: placeholder, completion: .file) }
    package static let directory = Self(placeholder: "DIR", completion: .directory)
    package static let duration = Self(placeholder: "TIME", completion: .none)
    package static func text(_ placeholder: String) -> Self { Self(placeholder: placeholder, completion: .none) }
    package static func words(_ placeholder: String, _ words: [String]) -> Self {
        Self(placeholder: placeholder, completion: .words(words))
    }
}

/// What the parser has gathered so far: the options, and the parts of the job source that are
/// settled only once the operands are known.
package struct ParsedOptions {
    package var options = Options()
    package var template: [UInt8]?
    /// `-a FILE`, each time it is given: one file is the job list (or `--each`'s arguments);
    /// several, with `--each`, are argument lists, as `:::: A B`.
    var argumentFiles: [String] = []
    /// `--help` or `--version`: answer that and run nothing.
    package var answer: Invocation?
    /// Set by `--each`: every later word is an argument.
    var optionsEnded = false
}
