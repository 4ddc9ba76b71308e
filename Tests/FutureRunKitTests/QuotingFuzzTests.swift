import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// Random templates drawn from a grammar of shell constructs, with replacement strings anywhere,
/// times hostile arguments, each run by dash and by bash: either the template is refused at the
/// start (only where the grammar put a construct that must be refused), or no canary file appears
/// and every argument arrives byte for byte where the template put it.
///
/// `FUTURERUN_FUZZ_SEED` repeats a run, `FUTURERUN_FUZZ_CASES` sets its size (`make fuzz`).
@Suite struct QuotingFuzz {
    @Test func argumentsAreDataInGeneratedTemplates() {
        let environment = ProcessInfoLite.environment
        let seed = environment["FUTURERUN_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let cases = environment["FUTURERUN_FUZZ_CASES"].flatMap { Int($0) } ?? 2000
        var generator = TemplateGrammar(seed: seed)
        let scratch = Scratch()
        var refused = 0
        var failures: [String] = []
        var inFlight: [(description: String, expected: [UInt8], directory: String, run: Future<CommandResult>)] = []
        func settle(keeping limit: Int) {
            while inFlight.count > limit {
                let check = inFlight.removeFirst()
                let result = check.run.value
                if access(check.directory + "/CANARY", F_OK) == 0 {
                    failures.append("ran code: \(check.description)")
                } else if result.status != .exited(0) || result.stdout.bytes() != check.expected {
                    let got = String(decoding: result.stdout.bytes(), as: UTF8.self)
                    failures.append(
                        "\(check.description)\n  expected \(String(reflecting: String(decoding: check.expected, as: UTF8.self)))\n  got \(String(reflecting: got)) (\(result.status))"
                    )
                }
            }
        }
        for number in 0..<cases where failures.count < 5 {
            let (fragment, arguments) = generator.nextCase()
            let template: Template
            do {
                template = try Template(Array(fragment.text.utf8))
            } catch {
                refused += 1
                if !fragment.mayBeRefused {
                    failures.append("refused a template it can hold: \(String(reflecting: fragment.text)): \(error)")
                }
                continue
            }
            if fragment.mustBeRefused {
                failures.append("accepted a template it must refuse: \(String(reflecting: fragment.text))")
                continue
            }
            let script = template.expand(arguments: arguments, jobNumber: 1, slot: 1)
            let expected = fragment.output(arguments)
            for shell in fragment.bashOnly ? ["/usr/bin/bash"] : ["/usr/bin/dash", "/usr/bin/bash"] {
                let directory = scratch.file("\(number)-\(shell.split(separator: "/").last!)")
                mkdir(directory, 0o700)
                var command = Command(bytes: [Array(shell.utf8), Array("-c".utf8), script])
                command.workingDirectory = directory
                command.timeout = .seconds(20)
                let description =
                    "\(shell) -c \(String(reflecting: String(decoding: script, as: UTF8.self))) (template \(String(reflecting: fragment.text)))"
                inFlight.append((description, expected, directory, command.run()))
            }
            settle(keeping: 8)
        }
        settle(keeping: 0)
        #expect(failures.isEmpty, "seed \(seed) (FUTURERUN_FUZZ_SEED=\(seed) repeats it):\n\(failures.joined(separator: "\n"))")
        #expect(refused < cases / 3, "seed \(seed): \(refused) of \(cases) templates refused; the test would prove little")
    }
}

/// The environment, read once, without Foundation.
enum ProcessInfoLite {
    static let environment: [String: String] = {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return values
    }()
}

/// A piece of a generated template: its text, what it prints for the job's arguments, and whether
/// it holds a construct futurerun may (or must) refuse.
struct Fragment {
    var text: String
    var output: ([[UInt8]]) -> [UInt8]
    var mayBeRefused = false
    var mustBeRefused = false
    /// It must be followed by a newline (a comment, a here-document's delimiter line).
    var endsLine = false
    /// It uses bash's syntax (`[[ ]]`): dash does not run it.
    var bashOnly = false

    /// `self` then `next`, joined by `joiner` (a newline when `self` ends its line).
    func then(_ next: Fragment, joiner: String) -> Fragment {
        let first = output
        let second = next.output
        return Fragment(
            text: text + (endsLine ? "\n" : joiner) + next.text, output: { first($0) + second($0) },
            mayBeRefused: mayBeRefused || next.mayBeRefused, mustBeRefused: mustBeRefused || next.mustBeRefused,
            endsLine: next.endsLine, bashOnly: bashOnly || next.bashOnly)
    }

    /// The text, closed with a newline if it must be (before a `)` or `;;`).
    var closedText: String { endsLine ? text + "\n" : text }
    /// `text` (which holds this fragment) printing `output` (by default what this one prints),
    /// refused as this one is.
    func wrapped(_ text: String, output: (([[UInt8]]) -> [UInt8])? = nil) -> Fragment {
        Fragment(
            text: text, output: output ?? self.output, mayBeRefused: mayBeRefused, mustBeRefused: mustBeRefused,
            bashOnly: bashOnly)
    }

    /// The text ended as a command in a list (before `}` or `fi`): by `;` or a newline.
    var terminatedText: String { endsLine ? text + "\n" : text + ";" }
}

/// A seeded generator (SplitMix64) of templates and hostile arguments.
struct TemplateGrammar {
    private var state: UInt64
    private var lists = 1
    private var functions = 0

    init(seed: UInt64) { state = seed }

    static let hostileArguments: [[UInt8]] =
        [
            "$(touch CANARY)", "`touch CANARY`", "'; touch CANARY; '", "\"; touch CANARY; \"", "\\", "\\\\'", "a\nb",
            "x\ntouch CANARY\n", "\r", "a\r\nb", "# c", "}", ")", "x)", "; touch CANARY", "*", "", "EOF",
            "a\nEOF\ntouch CANARY", "${IFS}", "$((1))", "a[$(touch CANARY)]", "-n", "%s", "~", "{}", "{1}", "'", "\"", "$",
            "&", "|", "a b", "\ttab", "END",
        ].map { Array($0.utf8) } + [[0xFF, 0xFE], [0xC3], [0x80, 0x27]]

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// One template and one job's arguments.
    mutating func nextCase() -> (Fragment, [[UInt8]]) {
        lists = 1 + below(3)
        functions = 0
        var fragment = statement(depth: 0)
        for _ in 0..<below(3) { fragment = fragment.then(statement(depth: 0), joiner: ["; ", "\n", " && "][below(3)]) }
        // Arguments go where the template puts them; appending is tested apart.
        if !["{}", "{1}", "{2}", "{3}"].contains(where: { fragment.text.contains($0) }) {
            let (string, list) = replacement()
            fragment = fragment.then(
                Fragment(text: "printf '<%s>' \(string)", output: { Array("<".utf8) + $0[list] + Array(">".utf8) }), joiner: "\n")
        }
        let arguments = (0..<lists).map { _ in Self.hostileArguments[below(Self.hostileArguments.count)] }
        return (fragment, arguments)
    }

    /// A replacement string for one of the lists, and its list's index.
    private mutating func replacement() -> (String, Int) {
        let list = below(lists)
        return (lists == 1 && below(2) == 0 ? "{}" : "{\(list + 1)}", list)
    }

    private static func trimmingNewlines(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        while bytes.last == 0x0A { bytes.removeLast() }
        return bytes
    }

    /// A word that `printf '<%s>'` prints: its text and the bytes it stands for.
    private mutating func word() -> Fragment {
        let (string, list) = replacement()
        let value: ([[UInt8]]) -> [UInt8] = { $0[list] }
        let trimmed: ([[UInt8]]) -> [UInt8] = { Self.trimmingNewlines($0[list]) }
        switch below(11) {
        case 0: return Fragment(text: string, output: value)
        case 1: return Fragment(text: "\"\(string)\"", output: value)
        case 2: return Fragment(text: "\"a\(string)b\"", output: { Array("a".utf8) + $0[list] + Array("b".utf8) })
        case 3: return Fragment(text: "'\(string)'", output: value)
        case 4: return Fragment(text: "'a'\(string)'b'", output: { Array("a".utf8) + $0[list] + Array("b".utf8) })
        case 5: return Fragment(text: "\"$(printf %s \(string))\"", output: trimmed)
        case 6: return Fragment(text: "\"`printf %s \(string)`\"", output: trimmed)
        case 7: return Fragment(text: "\"${unset_fr:-\(string)}\"", output: value)
        case 8: return Fragment(text: "${unset_fr:-\(string)}", output: value)
        case 9: return Fragment(text: "\"$(printf %s \"\(string)\")\"", output: trimmed)
        default: return Fragment(text: "\"`printf %s \\\"\\`printf %s \(string)\\`\\\"`\"", output: trimmed)
        }
    }

    private static func literal(_ text: String) -> ([[UInt8]]) -> [UInt8] {
        let bytes = Array(text.utf8)
        return { _ in bytes }
    }

    /// A statement of the grammar, nesting others up to depth 2.
    private mutating func statement(depth: Int) -> Fragment {
        let choices = depth >= 2 ? 9 : 26
        switch below(choices) {
        case 0, 1:
            let printed = word()
            let inner = printed.output
            return Fragment(text: "printf '<%s>' \(printed.text)", output: { Array("<".utf8) + inner($0) + Array(">".utf8) })
        case 2:
            let (first, second) = (word(), word())
            let (a, b) = (first.output, second.output)
            return Fragment(
                text: "printf '<%s>' \(first.text) \(second.text)",
                output: { Array("<".utf8) + a($0) + Array("><".utf8) + b($0) + Array(">".utf8) })
        case 3:
            let (string, list) = replacement()
            let strips = below(2) == 0
            let (tab, dash) = strips ? ("\t", "-") : ("", "")
            let delimiter = ["EOF", "END", "X"][below(3)]
            let substituted = below(2) == 0
            let line = substituted ? "[$(printf %s \(string))] \"\(string)\"" : "[\(string)] \"\(string)\""
            return Fragment(
                text: "cat <<\(dash)\(delimiter)\n\(tab)\(line)\n\(tab)\(delimiter)",
                output: {
                    let first = substituted ? Self.trimmingNewlines($0[list]) : $0[list]
                    return Array("[".utf8) + first + Array("] \"".utf8) + $0[list] + Array("\"\n".utf8)
                }, endsLine: true)
        case 4:
            let quoted = below(2) == 0
            if quoted {
                let (string, _) = replacement()
                return Fragment(
                    text: "cat <<'EOF'\n\(string)\nEOF", output: Self.literal("\(string)\n"), mayBeRefused: true,
                    mustBeRefused: true,
                    endsLine: true)
            }
            return Fragment(text: "cat <<'EOF'\n$x `y` \\\nEOF", output: Self.literal("$x `y` \\\n"), endsLine: true)
        case 5:
            let (string, _) = replacement()
            return Fragment(text: "true # \(string) ) } ` '", output: Self.literal(""), endsLine: true)
        case 6:
            let (string, _) = replacement()
            return Fragment(text: "printf '<%s>' \"`true # \(string)`\"", output: Self.literal("<>"))
        case 7:
            return Fragment(text: "printf '<%s>' $((1<<2))", output: Self.literal("<4>"))
        case 8:
            let (string, _) = replacement()
            let forms = [
                "printf '<%s>' $(( \(string) + 1 ))", "(( x = \(string) ))", "let x=\(string)", "a[\(string)]=1",
                "[[ 1 -eq \(string) ]]", "printf %s ${x:\(string)}",
            ]
            return Fragment(text: forms[below(forms.count)], output: Self.literal(""), mayBeRefused: true, mustBeRefused: true)
        case 9:
            let (string, _) = replacement()
            let inner = statement(depth: depth + 1)
            return inner.wrapped("case \(string) in *) \(inner.closedText);; esac")
        case 10:
            let inner = statement(depth: depth + 1)
            return inner.wrapped("case x in x) \(inner.closedText);; esac")
        case 11:
            let inner = statement(depth: depth + 1)
            return inner.wrapped("( \(inner.closedText) )")
        case 12:
            functions += 1
            let name = "f\(depth)_\(functions)"
            let inner = statement(depth: depth + 1)
            return inner.wrapped("\(name)() { \(inner.terminatedText) }; \(name)")
        case 13:
            let inner = statement(depth: depth + 1)
            let output = inner.output
            return inner.wrapped(
                "printf '<%s>' \"$( \(inner.closedText) )\"",
                output: { Array("<".utf8) + Self.trimmingNewlines(output($0)) + Array(">".utf8) })
        case 14:
            let inner = statement(depth: depth + 1)
            let suffix = [" | cat", " 2>/dev/null", " > /dev/null"][below(3)]
            let output = suffix == " > /dev/null" ? Self.literal("") : inner.output
            return inner.wrapped("{ \(inner.terminatedText) }\(suffix)", output: output)
        case 15:
            let inner = statement(depth: depth + 1)
            return inner.wrapped("if true; then \(inner.terminatedText) fi")
        case 16:
            let assigned = word()
            let output = assigned.output
            return Fragment(
                text: "v=\(assigned.text); printf '<%s>' \"$v\"", output: { Array("<".utf8) + output($0) + Array(">".utf8) })
        case 17:
            let (string, list) = replacement()
            return Fragment(
                text: "printf '<%s>' x\(string)y", output: { Array("<x".utf8) + $0[list] + Array("y>".utf8) })
        case 18:
            // A command name the shell finds after quote removal and line continuations.
            let printed = word()
            let inner = printed.output
            let name = ["\"printf\"", "\\printf", "pr''intf", "pr\\\nintf", "command printf"][below(5)]
            return Fragment(text: "\(name) '<%s>' \(printed.text)", output: { Array("<".utf8) + inner($0) + Array(">".utf8) })
        case 19:
            let (string, list) = replacement()
            let nested = below(2) == 0 ? "\"${unset_fr:-${unset_fr2:-\(string)}}\"" : "x\\\n\(string)"
            let prefix = nested.hasPrefix("x") ? Array("x".utf8) : []
            return Fragment(text: "printf '<%s>' \(nested)", output: { Array("<".utf8) + prefix + $0[list] + Array(">".utf8) })
        case 20:
            // An argument that passes through variables, none of which is evaluated.
            let (string, list) = replacement()
            let forms = [
                "x=\(string); y=$x; printf '<%s>' \"$y\"", "set -- \(string); printf '<%s>' \"$1\"",
                "for v in \(string); do printf '<%s>' \"$v\"; done", "export E=\(string); printf '<%s>' \"$E\"",
                "f() { printf '<%s>' \"$1\"; }; f \(string)", "printf '<%s>' \"${assigned_fr:=\(string)}\"; unset assigned_fr",
            ]
            return Fragment(text: forms[below(forms.count)], output: { Array("<".utf8) + $0[list] + Array(">".utf8) })
        case 21:
            // Operands of fixed operators of test and [[ ]] (bash), whatever the argument's bytes.
            let (string, list) = replacement()
            let bash = below(2) == 0
            let condition =
                bash
                ? "[[ -n \(string) || \(string) == x || ! -e \(string) ]]"
                : "[ -n \(string) ] || [ \(string) = x ] || [ ! -e \(string) ]"
            return Fragment(
                text: "if \(condition); then printf '<%s>' \(string); else printf '<%s>' \(string); fi",
                output: { Array("<".utf8) + $0[list] + Array(">".utf8) }, bashOnly: bash)
        case 22:
            // Places where an argument is a name or code in bash, however it is written.
            let (string, _) = replacement()
            let (other, _) = replacement()
            let forms = [
                "\"let\" x=\(string)", "\\let x=\(string)", "l''et x=\(string)", "dec\"\"lare -i x=\(string)",
                "\\typeset -i x=\(string)",
                "printf -v \(string) %s hi", "declare \(string)=1", "read \(string) <<<hi", "f() { local \(string)=1; }; f",
                "[[ -v \(string) ]]", "test -v \(string)", "x=\(string); echo \"${!x}\"", "declare -n r=\(string); echo \"$r\"",
                "set -- a b c; echo \"${@:\(string)}\"", "echo \"${*:\(string)}\"", "a=([\(string)]=1)", "a+=(\(string))",
                "echo $(\\\n(1+\(string)))", "(\\\n(x=\(string)))", "l\\\net x=\(string)", "x=\(string); echo $((x+1))",
                "f() { echo $(( $1 )); }; f \(string)", "x=XYZ; printf %s \"${x/Y/\(string)}\"", "L=let; $L x=\(string)",
                "[[ \(string) \(other) 1 ]]", "[ \(string) \(other) ]", "x=\(string); [[ $x -eq 1 ]]",
                "declare -i n; n=\(string)",
                "PS4=\(string)", "echo \"${!\(string)}\"", "unset \(string)",
            ]
            return Fragment(text: forms[below(forms.count)], output: Self.literal(""), mayBeRefused: true, mustBeRefused: true)
        case 23:
            let (string, list) = replacement()
            return Fragment(text: "cat <<<\(string)", output: { $0[list] + [0x0A] }, bashOnly: true)
        default:
            let (string, list) = replacement()
            return Fragment(
                text: "case x in \(string)) ;; *) printf '<%s>' \(string);; esac",
                output: { $0[list] == Array("x".utf8) ? [] : Array("<".utf8) + $0[list] + Array(">".utf8) })
        }
    }
}
