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

/// Expands `template` for one job, as a job script.
private func expand(_ template: String, _ arguments: [String], job: Int = 1, slot: Int = 1) throws -> String {
    let template = try Template(Array(template.utf8))
    return String(
        decoding: template.expand(arguments: arguments.map { Array($0.utf8) }, jobNumber: job, slot: slot), as: UTF8.self)
}

/// Runs `script` with `shell -c` in `directory`: its stdout bytes and how it ended.
private func run(_ script: [UInt8], shell: String, in directory: String) -> Future<CommandResult> {
    var command = Command(bytes: [Array(shell.utf8), Array("-c".utf8), script])
    command.workingDirectory = directory
    command.timeout = .seconds(20)
    return command.run()
}

private let shells = ["/usr/bin/dash", "/usr/bin/bash"]

@Suite struct Templates {
    static let hostileArguments = [
        "$(touch PWNED)", "`touch PWNED`", "'; touch PWNED; '", "a\nb", "x\ntouch PWNED\n",
        "\"; touch PWNED; \"", "\\", "$HOME", "EOF", "a\nEOF\ntouch PWNED", "a}b", "x)", "# c",
    ]

    /// The issue's reproductions, each once by dash and once by bash.
    @Test(arguments: [
        "printf '%s\\n' {}", "printf '%s\\n' \"{}\"", "printf '%s\\n' '{}'", "printf '%s\\n' \"$(printf '%s' {})\"",
        "printf '%s\\n' \"`printf '%s' {}`\"", "x=`printf '%s' {}`; printf '%s\\n' \"$x\"", "cat <<EOF\n{}\nEOF",
        "cat <<-\"END\"\n\tx\n\tEND\nprintf '%s\\n' {}", "cat <<EOF\n$(printf '%s' {})\nEOF",
        "echo $((1<<2))\nprintf '%s\\n' {}", "echo \"$( (true) ; printf '%s\\n' {} )\"",
        "echo \"$(case x in x) printf '%s\\n' {};; esac)\"", "echo \"$(f() { printf '%s\\n' \"$1\"; }; f {})\"",
        "echo `true #`\nprintf '%s\\n' {}", "printf '%s\\n' {}  # from {}", "printf '%s\\n' \"${x:-{}}\"",
        "printf '%s\\n' \"`printf '%s' \\\"\\`printf '%s' {}\\`\\\"`\"",
    ])
    func everyQuotingContextKeepsTheArgumentData(template: String) throws {
        let scratch = Scratch()
        for argument in Self.hostileArguments {
            let line = try Template(Array(template.utf8)).expand(arguments: [Array(argument.utf8)], jobNumber: 1, slot: 1)
            for shell in shells {
                let result = run(line, shell: shell, in: scratch.path).value
                let output = String(decoding: result.stdout.bytes(), as: UTF8.self)
                let script = String(decoding: line, as: UTF8.self)
                #expect(result.status == .exited(0), "\(shell): \(script)")
                #expect(!scratch.exists("PWNED"), "\(shell): \(script) ran code")
                // Backquotes and $(...) drop trailing newlines, as the shell does with any output.
                var expected = argument
                if template.contains("printf '%s' {}") || template.contains("`printf") {
                    while expected.hasSuffix("\n") { expected.removeLast() }
                }
                if template.hasPrefix("echo $((1<<2))") { expected = "4\n" + expected }
                #expect(output.contains(expected), "\(shell): \(script) printed \(output)")
            }
        }
    }

    @Test func anArgumentHoldingTheDelimiterLineStaysInTheHereDocument() throws {
        let scratch = Scratch()
        let template = "cat <<EOF\nEOF{1}\necho {2}\nEOF"
        let line = try Template(Array(template.utf8)).expand(arguments: [[], Array("; touch PWNED".utf8)], jobNumber: 1, slot: 1)
        for shell in shells {
            let result = run(line, shell: shell, in: scratch.path).value
            #expect(String(decoding: result.stdout.bytes(), as: UTF8.self) == "EOF\necho ; touch PWNED\n")
            #expect(!scratch.exists("PWNED"))
        }
    }

    @Test(arguments: [
        ("echo $'a{}'", "$'...'"), ("cat <<{}\nx\n{}", "delimiter"), ("cat <<'EOF'\n{}\nEOF", "quoted here-document"),
        ("echo $(( {} + 1 ))", "((...))"), ("(( x = {} ))", "((...))"), ("echo $[{}]", "$[...]"), ("let x={}", "let"),
        ("a[{}]=1", "subscript"), ("echo ${a[ {} ]}", "subscript"), ("echo ${x:{}}", "OFFSET"),
        ("[[ 1 -eq {} ]]", "-eq"), ("declare -i x={}", "assignment to x, whose value the shell evaluates"),
        ("local -ri x={}", "assignment to x, whose value the shell evaluates"),
    ])
    func contextsWhereNoReferenceIsDataAreRefused(template: String, context: String) {
        #expect {
            _ = try Template(Array(template.utf8))
        } throws: { error in
            (error as? UsageError)?.description.contains(context) == true
        }
    }

    @Test func argumentsAreNotAppendedInsideQuotesOrAHereDocument() {
        for template in ["cat <<EOF\n", "echo 'x", "echo \"x"] {
            #expect(throws: UsageError.unplacedArguments) { _ = try Template(Array(template.utf8)) }
        }
    }

    @Test func constructsNearArithmeticStayAllowed() throws {
        #expect(try expand("echo $((1<<2)); echo {}", ["a"]) == "_fr1=a; echo $((1<<2)); echo \"${_fr1}\"")
        // Inside [[ ]] an argument is a reference: written bare, `-eq` would be an operator.
        #expect(try expand("[[ -f {} ]] && gzip {}", ["a b"]) == "_fr1='a b'; [[ -f \"${_fr1}\" ]] && gzip 'a b'")
        #expect(try expand("echo \\$'{}'", ["q"]) == "_fr1=q; echo \\$''\"${_fr1}\"''")
    }

    @Test func everyReplacementStringStopsTheAppending() throws {
        #expect(try expand("echo job {#}", ["a"]) == "echo job 1")
        #expect(try expand("echo slot {%}", ["a"], slot: 2) == "echo slot 2")
        #expect(try expand("echo", ["a", "b c"]) == "echo a 'b c'")
    }

    @Test func afterPlainWordsAnArgumentIsAQuotedWord() throws {
        #expect(try expand("gzip {}", ["a.log"]) == "gzip a.log")
        #expect(try expand("gzip {}", ["a b.log"]) == "gzip 'a b.log'")
        #expect(try expand("gzip {}", ["it's"]) == #"gzip 'it'\''s'"#)
        #expect(try expand("gzip {}", [""]) == "gzip ''")
        #expect(try expand("cp {1} {2//}/{1/.}.bak", ["src/a.txt", "out/dir/x"]) == "cp src/a.txt out/dir/a.bak")
        #expect(try expand("echo {#} {%}", ["z"], job: 7, slot: 3) == "echo 7 3")
    }

    @Test func elsewhereAnArgumentIsAReferenceForItsQuotes() throws {
        #expect(try expand("echo \"{}\"", ["$(x)"]) == #"_fr1='$(x)'; echo "${_fr1}""#)
        #expect(try expand("echo '{}'", ["a'b"]) == #"_fr1='a'\''b'; echo ''"${_fr1}"''"#)
        #expect(try expand("echo \"$(basename {})\"", ["a b"]) == #"_fr1='a b'; echo "$(basename "${_fr1}")""#)
        #expect(try expand("cat <<EOF\n{}\nEOF", ["x"]) == "_fr1=x; cat <<EOF\n${_fr1}\nEOF")
    }

    @Test func eachDistinctValueIsAssignedOnce() throws {
        #expect(
            try expand("echo \"{1}\" {1} '{2}' {2/}", ["a", "d/b"])
                == #"_fr1=a _fr2=d/b _fr3=b; echo "${_fr1}" "${_fr1}" ''"${_fr2}"'' "${_fr3}""#)
    }

    @Test func repeatedWordsRepeatOncePerArgument() throws {
        let template = try Template(Array("cp -t dst x/{} \"{.}\" {#}".utf8), repeatsWords: true)
        let line = template.expand(arguments: [Array("a.c".utf8), Array("b c".utf8)], jobNumber: 7, slot: 1)
        #expect(
            String(decoding: line, as: UTF8.self) == #"_fr1=a _fr2='b c'; cp -t dst x/a.c x/'b c' "${_fr1}" "${_fr2}" 7"#)
    }

    @Test func nonReplacementBracesStayLiteral() throws {
        #expect(try expand("echo ${HOME} {a,b} {x}", ["arg"]) == #"_fr1=arg; echo ${HOME} {a,b} {x} "${_fr1}""#)
    }
}

/// `--plus`'s string edits as values: what each spelling means, without a process (GNU parallel
/// compares the output in the end-to-end suite).
@Suite struct StringEdits {
    @Test func spellingsParseAsGNUParallelReadsThem() {
        #expect(StringEdit(":-x") == .defaultIfEmpty(Array("x".utf8)))
        #expect(StringEdit(":2:3") == .bytes(from: 2, count: 3))
        #expect(StringEdit("##a") == .removePrefix(pattern: "a", longest: true))
        #expect(StringEdit("%%a") == .removeSuffix(pattern: "a", longest: true))
        #expect(StringEdit("//a/b/c") == .replace(pattern: "a", with: "b/c", .every))
        #expect(StringEdit("/#a/") == .replace(pattern: "a", with: "", .atStart))
        #expect(StringEdit(",,A") == .changeCase(pattern: "A", upper: false, every: true))
        for notAnEdit in ["", ":x", ":1:2:3", "#", "/", "//", "/a", "^", "x"] {
            #expect(StringEdit(notAnEdit[...]) == nil, "\(notAnEdit)")
        }
    }

    @Test func ungreedyMakesEveryQuantifierOutsideABracketLazy() {
        #expect(StringEdit.ungreedy("a*b+c{2,3}") == "a*?b+?c{2,3}?")
        #expect(StringEdit.ungreedy("[*+]x\\*.*?") == "[*+]x\\*.*?")
    }

    @Test func editsApplyToBytes() {
        func edited(_ inner: String, _ argument: String) -> String {
            String(decoding: StringEdit(inner[...])!.apply(to: Array(argument.utf8)), as: UTF8.self)
        }
        #expect(StringEdit(":1")!.apply(to: Array("é".utf8)) == [0xA9], "bytes, as Perl counts them")
        #expect(edited(":9", "abc") == "" && edited(":1:9", "abc") == "bc")
        #expect(edited("#a*b", "aabab") == "ab" && edited("##a*b", "aabab") == "ab")
        #expect(edited("%b.*", "abcbd") == "abc" && edited("%%b.*", "abcbd") == "a")
        #expect(edited("^^b", "abcb") == "aBcB" && edited(",A", "ABA") == "aBA")
    }

    @Test func aPatternThatDoesNotCompileIsRefusedAtTheStart() {
        #expect(throws: UsageError.self) { try Template(Array("echo {/(/x}".utf8), plus: true) }
        #expect((try? Template(Array("echo ${#x} {:2}".utf8), plus: true)) != nil)
    }
}
