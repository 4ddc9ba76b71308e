/// GNU parallel's forms that futurerun does not do, each with futurerun's way if it has one: typed,
/// they are refused at the start with that, never read as something else. The options are every
/// option of GNU parallel's man page (20221122) that futurerun does not take; the README's
/// compatibility table lists them too.
package enum GNUForms {
    /// Options, with and without their dashes as typed (`--plus`, `-X`).
    package static let options: [String: String] = [
        "--arg-file-sep": "not supported",
        "--arg-sep": "not supported",
        "--basefile": "not supported: paths must exist on the host",
        "--basenameextensionreplace": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--basenamereplace": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--bf": "not supported: files are not copied and each job runs on one host",
        "--bg": "not supported",
        "--bin": "not supported",
        "--block-timeout": "not supported yet (it goes with --pipe)",
        "--bner": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--bnr": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--bt": "not supported yet (it goes with --pipe)",
        "--cat": "not supported yet (it goes with --pipe)",
        "--cf": "not supported",
        "--cleanup": "not supported: paths must exist on the host",
        "--color-failed": "not supported",
        "--compress": "not supported",
        "--compress-program": "not supported",
        "--controlmaster": "not supported: files are not copied and each job runs on one host",
        "--csv": "not supported",
        "--ctag": "not supported",
        "--ctagstring": "not supported",
        "--decompress-program": "not supported",
        "--dirnamereplace": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--dnr": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--embed": "not supported",
        "--er": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--exit": "not supported",
        "--extensionreplace": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--fg": "not supported",
        "--fifo": "not supported yet (it goes with --pipe)",
        "--filter": "not supported",
        "--filter-hosts": "not supported: files are not copied and each job runs on one host",
        "--group": "not needed: grouped, ordered output is futurerun's default",
        "--group-by": "not supported",
        "--hashbang": "not supported",
        "--hgrp": "not supported: files are not copied and each job runs on one host",
        "--hostgroups": "not supported: files are not copied and each job runs on one host",
        "--id": "not supported",
        "--interactive": "not supported",
        "--latest-line": "not supported",
        "--limit": "not supported yet",
        "--ll": "not supported",
        "--max-chars": "not supported; a command longer than the system takes fails as its own job",
        "--max-line-length-allowed": "not supported",
        "--max-lines": "not supported",
        "--minversion": "not supported",
        "--no-keep-order": "not supported: futurerun always prints in input order (--line-buffer or -u print as jobs write)",
        "--nonall": "not supported: files are not copied and each job runs on one host",
        "--noswap": "not supported yet",
        "--number-of-cores": "not supported",
        "--number-of-cpus": "not supported",
        "--number-of-sockets": "not supported",
        "--number-of-threads": "not supported",
        "--onall": "not supported: files are not copied and each job runs on one host",
        "--open-tty": "not supported",
        "--parens": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--plain": "not supported",
        "--process-slot-var": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--profile": "not supported",
        "--quote": "not needed: arguments are always quoted (-q is --quiet here)",
        "--record-env": "not supported",
        "--remove-rec-sep": "not supported yet (it goes with --pipe)",
        "--removerecsep": "not supported yet (it goes with --pipe)",
        "--retry-failed": "use --resume-failed",
        "--return": "not supported: paths must exist on the host",
        "--round": "not supported yet (it goes with --pipe)",
        "--round-robin": "not supported yet (it goes with --pipe)",
        "--roundrobin": "not supported yet (it goes with --pipe)",
        "--rpl": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--rrs": "not supported yet (it goes with --pipe)",
        "--rsync-opts": "not supported: files are not copied and each job runs on one host",
        "--semaphore": "not supported",
        "--semaphore-name": "not supported",
        "--semaphore-timeout": "not supported",
        "--seqreplace": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--session": "not supported",
        "--shebang": "not supported",
        "--shebang-wrap": "not supported",
        "--shell-completion": "not supported",
        "--shell-quote": "not supported",
        "--show-limits": "not supported",
        "--silent": "not supported",
        "--skip-first-line": "not supported",
        "--slotreplace": "not supported: the replacement strings are {} {.} {/} {//} {/.} {#} {%} {N} {-N}",
        "--sql": "not supported",
        "--sql-and-worker": "not supported",
        "--sql-master": "not supported",
        "--sql-worker": "not supported",
        "--ssh-delay": "not supported: files are not copied and each job runs on one host",
        "--st": "not supported",
        "--tee": "not supported",
        "--template": "not supported",
        "--term-seq": "not supported",
        "--tf": "not supported: files are not copied and each job runs on one host",
        "--tmpdir": "set TMPDIR",
        "--tmpl": "not supported",
        "--tmux": "not supported",
        "--tmuxpane": "not supported",
        "--total": "not needed: futurerun counts the jobs itself",
        "--total-jobs": "not needed: futurerun counts the jobs itself",
        "--transfer": "not supported: paths must exist on the host",
        "--transferfile": "not supported: paths must exist on the host",
        "--trc": "not supported: files are not copied and each job runs on one host",
        "--tty": "not supported",
        "--use-cores-instead-of-threads": "not supported",
        "--use-cpus-instead-of-cores": "not supported",
        "--use-sockets-instead-of-threads": "not supported",
        "--wait": "not supported",
        "-1": "not supported",
        "-2": "not supported",
        "-J": "not supported",
        "-L": "use -n N (an input line is one argument)",
        "-M": "not needed: futurerun always multiplexes its ssh connections",
        "-V": "use --version",
        "-e": "use -E STR",
        "-i": "use -I STR",
        "-l": "not supported",
        "-o": "not supported",
        "-p": "not supported",
        "-s": "not supported; a command longer than the system takes fails as its own job",
        "-t": "use -v (it prints each command line, on stderr)",
        "-x": "not supported; use -n N to give each job N arguments",
    ]

    /// GNU parallel's shapes that futurerun's own grammar would run otherwise, without a word:
    /// one command while stdin holds data (`find . | parallel gzip`: GNU's arguments, futurerun's
    /// would be ignored), and a GNU replacement string in a command (`parallel echo {}`: there is
    /// no argument to put in it). Each refused with futurerun's way to say it. Not refused: `{}`
    /// in single quotes (JSON, `awk '{}'`), `find … -exec … {}` and `xargs -I {}`, whose `{}` is theirs.
    package static func shapeRefusal(_ source: Options.Source, stdinHoldsData: Bool) -> UsageError? {
        guard case .commands(let commands) = source else { return nil }
        if let command = commands.first(where: holdsReplacementString) {
            let text = String(decoding: command, as: UTF8.self)
            return .gnuForm(
                form: "replacement string in a command ('\(text)')",
                instead:
                    "futurerun runs commands as typed; give the arguments with --each, as in futurerun --each '\(text)' ::: A B, or one per input line: ... | futurerun --each '\(text)'"
            )
        }
        if commands.count == 1, stdinHoldsData {
            let text = String(decoding: commands[0], as: UTF8.self)
            return .gnuForm(
                form: "'... | parallel COMMAND' (stdin as arguments)",
                instead:
                    "futurerun reads stdin as job lines only when no command is given; for one job per input line: ... | futurerun --each '\(text) {}' (or run it with stdin from /dev/null)"
            )
        }
        return nil
    }

    /// Whether `command` holds a replacement string outside single quotes, other than one of
    /// `find -exec` or `xargs -I`.
    static func holdsReplacementString(_ command: [UInt8]) -> Bool {
        let words = command.split { $0 == 0x20 || $0 == 0x09 }.map { String(decoding: $0, as: UTF8.self) }
        if words.contains("find"), words.contains(where: { ["-exec", "-execdir", "-ok", "-okdir"].contains($0) }) {
            return false
        }
        if words.contains("xargs"), words.contains(where: { $0.hasPrefix("-I") || $0 == "-i" || $0.hasPrefix("--replace") }) {
            return false
        }
        var quoted = false
        for index in command.indices {
            if command[index] == UInt8(ascii: "'") { quoted.toggle() }
            if !quoted, command[index] == UInt8(ascii: "{"), Template.isReplacement(in: command, at: index) { return true }
        }
        return false
    }

    /// The refusal for `option` as typed, if it is one of GNU parallel's.
    package static func refusal(_ option: String) -> UsageError? {
        let name = option.split(separator: "=", maxSplits: 1).first.map(String.init) ?? option
        return options[name].map { UsageError.gnuForm(form: name, instead: $0) }
    }

    /// The GNU parallel replacement strings a template may hold that futurerun does not do: a Perl
    /// expression `{= … =}` outside GNU's grammar (`perl`), and `--plus`'s strings: without `--plus` any
    /// of them (as GNU parallel leaves them), with it those futurerun does not do.
    static func templateRefusal(_ bytes: [UInt8], plus: Bool = false, perl: Bool = false) -> UsageError? {
        let text = String(decoding: bytes, as: UTF8.self)
        if !perl, let open = text.firstRange(of: "{="), text[open.upperBound...].contains("=}") {
            return .gnuForm(
                form: "{= perl expression =}",
                instead: "give --gnu for GNU's Perl expressions, or compute the value in the template's shell, "
                    + "as in $(echo {} | sed 's/a/b/')")
        }
        let paths = ["{..}", "{...}", "{/..}", "{/...}", "{+/}", "{+.}", "{+..}", "{+...}"]
        if !plus, let found = paths.first(where: text.contains) {
            return .gnuForm(form: found + " without --plus", instead: "give --plus, as GNU parallel needs it")
        }
        let others = [
            "{##}", "{0#}", "{0%}", "{choose_k}", "{uniq}", "{hgrp}", "{slot}", "{seq}", "{len}", "{agrp}", "{host}",
            "{sshlogin}",
        ]
        if let found = others.first(where: text.contains) {
            return .gnuForm(
                form: found + " (--plus)",
                instead: "futurerun takes --plus's path strings and string edits, not the job total, slot or host names")
        }
        return nil
    }
}
