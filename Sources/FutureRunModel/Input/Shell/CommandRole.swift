/// What a command does with its arguments, as far as keeping an argument data is concerned: the
/// policy behind ``ReplacementSites``, as plain values.
///
/// Only a shell's own builtins can read an argument as a name or as code; a program the shell
/// starts gets its arguments as bytes. A name with a `/` is never a builtin.
package enum CommandRole: Equatable {
    /// Arguments are data: any program, and builtins such as `echo`, `cd`, `exit`.
    case ordinary
    /// Some or all arguments are names (`read x`, `declare x`) or expressions (`let`), and bash
    /// evaluates a name's subscript (`x[$(cmd)]` runs `cmd`): no argument may carry data.
    case takesNames
    /// `declare`, `local`, `export`, `readonly`, `typeset`: `NAME=VALUE` words with a literal name
    /// and no flags may carry data in their values; any other argument is a name.
    case declares
    /// `printf`: options (`-v NAME`) come first; data only after the format.
    case printf
    /// `test` and `[`: the count of words decides which are operators, at run time.
    case test
    /// `set`: data only after `--` (it sets the positional parameters).
    case set
    /// `read`, `mapfile`: takes names and assigns what it reads to them.
    case reads
    /// `command`, `builtin`: the next word that is not an option is the command.
    case wrapper

    /// The role of the command named `name` (after quote removal).
    package static func of(_ name: [UInt8]) -> CommandRole {
        if name.contains(UInt8(ascii: "/")) { return .ordinary }
        switch String(decoding: name, as: UTF8.self) {
        case "let", "unset", "getopts", "wait", "enable", "compgen", "complete", "compopt", "bind", "fc", "caller":
            return .takesNames
        case "declare", "typeset", "local", "export", "readonly": return .declares
        case "printf": return .printf
        case "test", "[": return .test
        case "set": return .set
        case "read", "mapfile", "readarray": return .reads
        case "command", "builtin": return .wrapper
        default: return .ordinary
        }
    }

    /// Variables whose value a shell expands or runs later (prompts, start-up files): assigning
    /// an argument to one runs it.
    static let evaluatedVariables: Set<String> = ["PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV"]

    /// Flags of `declare` and its kin after which an assignment's value is evaluated (`-i`), a
    /// name (`-n`) or an array's compound text (`-a`, `-A`).
    static func flagsEvaluateValues(_ flags: [UInt8]) -> Bool {
        flags.contains { "inaA".utf8.contains($0) }
    }
}

/// The operators of `test`, `[` and `[[ ]]`.
package enum TestOperator {
    /// Unary operators that read their operand as a name: bash evaluates its subscript.
    static let naming: Set<String> = ["-v", "-R"]
    /// Unary operators whose operand is a string or a file name.
    static let unary: Set<String> = [
        "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-O", "-G", "-L",
        "-S", "-N", "-z", "-n", "-o",
    ]
    /// Binary operators whose operands are strings or file names.
    static let binary: Set<String> = ["=", "==", "!=", "<", ">", "=~", "-nt", "-ot", "-ef"]
    /// Binary operators that evaluate their operands as expressions (`[[ ]]` in bash, `test` in
    /// ksh and zsh).
    static let arithmetic: Set<String> = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]
}
