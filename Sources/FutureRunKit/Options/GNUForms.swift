/// GNU parallel's forms that futurerun does not do, each with futurerun's way if it has one: typed,
/// they are refused at the start with that, never read as something else (the README's
/// compatibility table lists them too).
enum GNUForms {
    /// Options, with and without their dashes as typed (`--plus`, `-X`).
    static let options: [String: String] = [
        "--plus": "its replacement strings are not supported; use {.} {/} {//} {/.} or the shell's ${x%.*}",
        "-X": "not supported; use -n N to give each job N arguments",
        "-m": "not supported; use -n N to give each job N arguments",
        "--xargs": "not supported; use -n N to give each job N arguments",
        "--files": "not supported; --results DIR keeps each job's output in files",
        "--pipe": "not supported yet",
        "--pipepart": "not supported yet",
        "--pipe-part": "not supported yet",
        "--block": "not supported yet (it goes with --pipe)",
        "--recstart": "not supported yet (it goes with --pipe)",
        "--recend": "not supported yet (it goes with --pipe)",
        "--memfree": "not supported yet",
        "--memsuspend": "not supported yet",
        "--load": "not supported yet",
        "--transfer": "not supported: paths must exist on the host",
        "--transferfile": "not supported: paths must exist on the host",
        "--return": "not supported: paths must exist on the host",
        "--basefile": "not supported: paths must exist on the host",
        "--cleanup": "not supported: paths must exist on the host",
        "--quote": "not needed: arguments are always quoted (-q is --quiet here)",
        "--semaphore": "not supported",
        "--sem": "not supported",
        "--sqlmaster": "not supported",
        "--sqlworker": "not supported",
    ]

    /// The refusal for `option` as typed, if it is one of GNU parallel's.
    static func refusal(_ option: String) -> UsageError? {
        let name = option.split(separator: "=", maxSplits: 1).first.map(String.init) ?? option
        return options[name].map { UsageError.gnuForm(form: name, instead: $0) }
    }

    /// The GNU parallel replacement strings a template may hold that futurerun does not do: a Perl
    /// expression `{= … =}` (futurerun runs no Perl), and `--plus`'s strings.
    static func templateRefusal(_ bytes: [UInt8]) -> UsageError? {
        let text = String(decoding: bytes, as: UTF8.self)
        if let open = text.range(of: "{="), text[open.upperBound...].contains("=}") {
            return .gnuForm(
                form: "{= perl expression =}",
                instead: "futurerun runs no Perl; compute the value in the template's shell, as in $(echo {} | sed 's/a/b/')")
        }
        for plus in ["{..}", "{...}", "{+/}", "{+.}", "{+..}", "{+...}", "{##}", "{uniq}", "{hgrp}", "{slot}", "{seq}", "{len}"]
        where text.contains(plus) {
            return .gnuForm(form: plus + " (--plus)", instead: "use {.} {/} {//} {/.} {#} {%} or the shell's ${x%.*}")
        }
        return nil
    }
}

extension String {
    fileprivate func range(of needle: String) -> Range<String.Index>? { firstRange(of: needle) }
}
