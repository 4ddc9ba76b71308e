import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

/// The allowlist as values: which places of a template keep an argument data, read without
/// running a shell (``ReplacementSites``).
@Suite struct ReplacementSiteTests {
    /// The template with each `{}` as a hole.
    private func sites(_ template: String) -> (ReplacementSites, count: Int) {
        let parts = template.split(separator: "{}", omittingEmptySubsequences: false)
        let holes = parts.map { Array($0.utf8) }.joined(separator: [ShellLexer.hole])
        return (ReplacementSites(holes: Array(holes)), parts.count - 1)
    }

    private func refused(_ template: String) -> [Bool] {
        let (sites, count) = sites(template)
        return (0..<count).map { sites.refusal($0) != nil }
    }

    @Test(arguments: [
        "gzip {}", "convert {} out/{}.png", "cat < {} > {}.out", "n={}; echo \"$n\"", "echo \"x{}y\" '{}'",
        "case {} in {}) ;; esac", "for f in {}; do echo \"$f\"; done", "echo \"${u:-{}}\"", "echo $(printf %s {})",
        "echo `printf %s {}`", "cat <<EOF\n{}\nEOF", "true # {}", "[ -f {} ] && echo {}", "[ {} = x ]", "[ ! -e {} ]",
        "[[ -n {} && {} == x ]]", "test {} -a {}", "export A={}", "local v={}", "set -- {}", "set x {}",
        "printf '%s\\n' {}", "printf -- {}", "printf -v out %s {}; echo \"$out\"", "f() { echo \"$1\"; }; f {}",
        "command echo {}", "/bin/echo {}", "eval 'echo {}'", "x={}; y=$x; echo \"${y}\"", "echo $((1+2)) {}",
        "cat <<<{}", "wc -c <(echo {})", "{} --version", "n={}; echo \"${x/a/\"$n\"}\"",
    ])
    func argumentsStayDataHere(template: String) {
        #expect(!refused(template).contains(true), "\(template)")
    }

    @Test(arguments: [
        "echo $(( {} ))", "(( {} ))", "echo $[{}]", "a[{}]=1", "echo ${a[{}]}", "echo ${x:{}}", "echo ${x:0:{}}",
        "let x={}", "\"let\" x={}", "\\let x={}", "l''et x={}", "l\\\net x={}", "declare {}=1", "declare -i x={}",
        "local -n r={}", "export {}", "read {}", "mapfile -t {}", "unset {}", "getopts ab {}", "printf -v {} x",
        "printf {} x", "set {}", "test -v {}", "[ -v {} ]", "[[ -v {} ]]", "[ {} ]x", "[[ {} {} 1 ]]", "[ {} -eq 1 ]",
        "[[ {} -lt 3 ]]", "a=({})", "a+=([{}]=1)", "echo \"${x/a/{}}\"", "echo \"${x#{}}\"", "echo \"${!{}}\"",
        "echo $'{}'", "cat <<'EOF'\n{}\nEOF", "cat <<{}\nx\n{}", "$CMD {}", "x={}; echo \"${!x}\"", "x={}; echo $((x))",
        "f() { echo $(( $1 )); }; f {}", "read x <<<{}; let x", "x={}; [[ x -eq 1 ]]", "declare -i n; n={}", "PS4={}; set -x",
        "echo ${{}}", "x={}; echo \"${x@P}\"", "x={}; [[ $x -gt 1 ]]", "for {} in a; do :; done", "{}() { :; }",
        "echo $(\\\n(1+{}))", "for (( i={}; i<2; i++ )); do :; done",
    ])
    func argumentsAreRefusedHere(template: String) {
        #expect(refused(template).contains(true), "\(template)")
    }

    @Test func theRoleOfACommandComesFromItsNameAfterQuoteRemoval() {
        #expect(CommandRole.of(Array("let".utf8)) == .takesNames)
        #expect(CommandRole.of(Array("/usr/bin/printf".utf8)) == .ordinary)
        #expect(CommandRole.of(Array("typeset".utf8)) == .declares)
        #expect(CommandRole.of(Array("[".utf8)) == .test)
        #expect(CommandRole.flagsEvaluateValues(Array("-ri".utf8)))
        #expect(!CommandRole.flagsEvaluateValues(Array("-rx".utf8)))
    }

    @Test func aRefusalThroughAVariableNamesIt() {
        let (sites, _) = sites("n={}; echo $((n))")
        #expect(sites.refusal(0)?.construct == "$((...)), which it reaches through the variable n")
    }

    @Test func insideDoubleBracketsAnArgumentIsNeverABareWord() {
        let (sites, _) = sites("[[ -f {} ]] && gzip {}")
        #expect(!sites.allowsBareWord(0))
        #expect(sites.allowsBareWord(1))
    }
}
