import TestSupport
import Testing

/// Under bash as under dash, an argument never runs as code: every template that would put it
/// where bash reads a name or an expression is refused at the start, naming the place.
@Suite struct ArgumentsAreData {
    static let payload = "x[$(touch PWNED)]"

    @Test(arguments: [
        #"set -- a b c; echo "${@:{}}""#, #"set -- a b c; echo "${*:{}}""#, #"a=(1 2); echo "${a[@]:{}}""#,
        #"a=(1 2); echo "${a[0]:{}}""#, #"echo "${?:{}}""#, #"echo "${#:{}}""#, #"y=a; echo "${!y:{}}""#,
        "a=([{}]=1)", "a+=([{}]=1)", "declare -a a=([{}]=1)",
        #""let" x={}"#, #"\let x={}"#, "l''et x={}", #"dec""lare -i x={}"#, #"\typeset -i x={}"#,
        "echo $(\\\n(1+{}))", "(\\\n(x={}))", "l\\\net x={}",
        "printf -v {} %s hi", "declare {}=1", "read {} <<<hi", "f() { local {}=1; }; f",
        "[[ -v {} ]]", "test -v {}", #"x={}; echo "${!x}""#, #"declare -n r={}; echo "$r""#,
        #"x=XYZ; printf %s "${x/Y/{}}""#, "x={}; echo $((x+1))", "f() { echo $(( $1 )); }; f {}", "L=let; $L x={}",
    ])
    func aTemplateWhereBashReadsAnArgumentAsCodeIsRefused(template: String) {
        for shell in ["/bin/dash", "/bin/bash"] {
            let scratch = Scratch()
            let run = futurerun(["-q", "--shell", shell, "--each", template, Self.payload], directory: scratch.path)
            #expect(run.status == 255, "\(shell) \(template): \(run.err)")
            #expect(run.errLines.count == 1 && run.err.contains("of the template would not be data in"), "\(run.err)")
            #expect(!scratch.exists("PWNED"), "\(shell) ran the argument of \(template)")
        }
    }

    @Test func anArgumentThatWouldBeAnOperatorOfDoubleBracketsIsRefused() {
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "--shell", "/bin/bash", "--each", "[[ {1} {2} 1 ]] && echo yes", ":::", Self.payload, ":::", "-eq"],
            directory: scratch.path)
        #expect(run.status == 255)
        #expect(run.err.contains("{1} at character 4 of the template would not be data in a place of [[ ]]"), "\(run.err)")
        #expect(!scratch.exists("PWNED"))
    }

    @Test func argumentsStayDataWhereTheyPassThroughVariablesAndFixedOperators() {
        let scratch = Scratch()
        let template = #"n={}; set -- "$n"; if [[ -n $1 && $1 == "$n" ]] && [ -n "$n" ]; then printf '<%s>' "$n" "${u:-$1}"; fi"#
        let run = futurerun(["-q", "--shell", "/bin/bash", "--each", template, Self.payload, "&"], directory: scratch.path)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == "<\(Self.payload)><\(Self.payload)><&><&>")
        #expect(!scratch.exists("PWNED"))
    }

    @Test func aHeaderArgumentIsOneNameWhateverItHolds() {
        let run = futurerun(["-q", "--each", "@t{#} after={} echo {#}", "a,b"])
        #expect(run.status == 255)
        #expect(run.err.contains("'a,b' is not a job name"), "\(run.err)")
        let numbersOnly = futurerun(["-q", "--each", "@t{#} echo {#}", "a,b"])
        #expect(numbersOnly.status == 0 && numbersOnly.out == "1\n", "\(numbersOnly.err)")
    }
}
