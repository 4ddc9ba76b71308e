import FutureRunModel

/// The text of `futurerun --help`: the forms and replacement strings as written here, the options
/// rendered from ``OptionDeclaration/all``.
package enum Help {
    package static let version = "futurerun 0.1.0"

    package static var text: String { introduction + options + closing }

    private static let introduction = """
        futurerun — run shell jobs in parallel; print their output in input order, with timing

        USAGE
          futurerun [OPTIONS] COMMAND [::: COMMAND ...]     each segment between ::: is one job
          futurerun [OPTIONS] < jobs.txt                     one job per line of stdin
          futurerun [OPTIONS] -a FILE                        one job per line of FILE ("-" is stdin)
          futurerun [OPTIONS] :::: FILE                      the same
          futurerun [OPTIONS] --each TEMPLATE ARG ...        TEMPLATE once per argument
          futurerun [OPTIONS] --each TEMPLATE ::: A B ::: 1 2   every combination of the lists
          futurerun [OPTIONS] --each TEMPLATE :::: FILE ...  argument lists read from files
          find . -name '*.log' | futurerun --each 'gzip {}'     arguments from stdin lines

        Options come first: every word after the command, or after --each TEMPLATE, belongs to the
        jobs. Jobs run with /bin/sh -c. In job files, blank lines and lines starting with # are skipped.
        Each job's stdout goes to stdout and its stderr to stderr, whole and in input order; a status
        line per job and a summary go to stderr.

        JOBS THAT WAIT FOR JOBS (a header at the start of a job line or ::: segment)
          @build after=gen make      start once gen succeeded (after-any=gen: once it ended)
          Names refer only to jobs before them; dependants of a failure are skipped.

        MANY MACHINES (-S: over OpenSSH; output, order and reports as if the jobs ran here)
          futurerun -S 8/build1,user@build2,: --each 'make -C {} test' ::: lib app cli
          A host is [N/]DEST (N slots, else -j, else its CPUs); : is this machine.

        REPLACEMENT STRINGS (--each; arguments are shell-quoted when substituted)
          {}  argument          {.}  without extension   {/}  base name     {//}  directory
          {/.} base name without extension    {#}  job number    {%}  job slot
          {1} {2} ...  argument from the 1st, 2nd ... list or column (also {2.} {2/} {2//} {2/.})
          A template with none of these gets the arguments appended.


        """

    private static var options: String {
        var text = ""
        for section in OptionDeclaration.Section.allCases {
            text += section.rawValue.uppercased() + " OPTIONS\n"
            for declaration in OptionDeclaration.all where declaration.section == section {
                text += entry(declaration)
            }
            text += "\n"
        }
        return text
    }

    /// `  -j, --jobs N         run N jobs at once ...`, further lines aligned under the first.
    package static func entry(_ declaration: OptionDeclaration) -> String {
        let helpColumn = 23
        var left = "  " + (declaration.shortName.map { "-\($0), " } ?? "    ") + declaration.displayName
        if let value = declaration.value { left += " " + value.placeholder }
        var lines = declaration.help
        let aliases = declaration.longNames.dropFirst().map { "--" + $0 }
        if !aliases.isEmpty { lines.append("(also " + aliases.joined(separator: ", ") + ")") }
        let indent = String(repeating: " ", count: helpColumn)
        var text: String
        if left.count < helpColumn - 1 {
            text = left + String(repeating: " ", count: helpColumn - left.count) + lines[0] + "\n"
        } else {
            text = left + "\n" + indent + lines[0] + "\n"
        }
        for line in lines.dropFirst() { text += indent + line + "\n" }
        return text
    }

    private static let closing = """
        EXIT STATUS
          0 all jobs succeeded · 1-100 that many failed · 101 more than 100 failed
          129/130/143 stopped by SIGHUP/SIGINT/SIGTERM · 141 the reader of stdout went away
          255 bad usage or an error of futurerun itself

        EXAMPLES
          futurerun 'make lint' ::: 'make test' ::: 'make docs'
          futurerun -j4 --timeout 10m < jobs.txt
          futurerun --each 'convert {} {.}.png' *.svg
          futurerun --colsep , --each 'echo {2} of {1}' :::: table.csv

        """
}
