import FutureRunModel

/// Shell completion scripts for bash, zsh and fish, rendered from ``OptionDeclaration/all``.
package enum Completions {
    private static let banner =
        "generated from the option table by 'make generate'; edit Sources/FutureRunOptions/OptionTable.swift"

    /// Every spelling of an option as typed: `-j`, `--jobs`.
    private static func spellings(_ declaration: OptionDeclaration) -> [String] {
        declaration.shortNames.map { "-\($0)" } + declaration.longNames.map { "--" + $0 }
    }

    package static var bash: String {
        var cases: [String] = []
        for declaration in OptionDeclaration.all {
            guard let value = declaration.value else { continue }
            let reply: String
            switch value.completion {
            case .file: reply = #"COMPREPLY=($(compgen -f -- "$cur"))"#
            case .directory: reply = #"COMPREPLY=($(compgen -d -- "$cur"))"#
            case .program: reply = #"COMPREPLY=($(compgen -c -- "$cur"))"#
            case .words(let words): reply = #"COMPREPLY=($(compgen -W ""# + words.joined(separator: " ") + #"" -- "$cur"))"#
            case .none: reply = "COMPREPLY=()"
            }
            cases.append("        \(spellings(declaration).joined(separator: "|"))) \(reply); return ;;")
        }
        let words = OptionDeclaration.all.flatMap(spellings).joined(separator: " ")
        return """
            # bash completion for futurerun: \(banner)
            _futurerun() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                case $prev in
            \(cases.joined(separator: "\n"))
                esac
                # After --each TEMPLATE every word is an argument, usually a file.
                local i
                for ((i = 1; i < COMP_CWORD - 1; i++)); do
                    [[ ${COMP_WORDS[i]} == --each ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; }
                done
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "\(words)" -- "$cur"))
                else
                    COMPREPLY=($(compgen -c -- "$cur"))
                fi
            }
            complete -o bashdefault -o default -F _futurerun futurerun

            """
    }

    package static var zsh: String {
        var specs: [String] = []
        for declaration in OptionDeclaration.all {
            let names = spellings(declaration)
            let description = "[" + zshEscape(declaration.summary) + "]"
            var action = ""
            if let value = declaration.value {
                let message = declaration.longNames[0]
                switch value.completion {
                case .file: action = ":\(message):_files"
                case .directory: action = ":\(message):_directories"
                case .program: action = ":\(message):_command_names -e"
                case .words(let words): action = ":\(message):(\(words.joined(separator: " ")))"
                case .none: action = ":\(message)"
                }
            }
            if names.count == 1 {
                specs.append("'" + names[0] + description + action + "'")
            } else {
                let group = "(" + names.joined(separator: " ") + ")"
                specs.append("'\(group)'{\(names.joined(separator: ","))}'\(description)\(action)'")
            }
        }
        return """
            #compdef futurerun
            # \(banner)
            _arguments -S \\
            \(specs.map { "  " + $0 + " \\" }.joined(separator: "\n"))
              '*::command:_normal'

            """
    }

    static var fish: String {
        var lines = ["# fish completion for futurerun: \(banner)"]
        for declaration in OptionDeclaration.all {
            var line = "complete -c futurerun"
            if let short = declaration.shortName { line += " -s \(short)" }
            for name in declaration.longNames { line += " -l \(name)" }
            if let value = declaration.value {
                switch value.completion {
                case .file: line += " -r -F"
                case .directory: line += " -x -a '(__fish_complete_directories)'"
                case .program: line += " -x -a '(__fish_complete_command)'"
                case .words(let words): line += " -x -a '\(words.joined(separator: " "))'"
                case .none: line += " -x"
                }
            }
            line += " -d " + fishQuote(declaration.summary)
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Inside a zsh `_arguments` spec in single quotes: brackets and colons escaped, no `'`.
    private static func zshEscape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "[", "]", ":", "\\": escaped += "\\" + String(character)
            case "'": escaped += "'\\''"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func fishQuote(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
