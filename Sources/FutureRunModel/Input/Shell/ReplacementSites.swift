/// Where each replacement string of a template stands, decided by an allowlist: a replacement is
/// allowed only where its argument is data in dash, bash, zsh and ksh alike, and refused
/// everywhere else, with the reason (``ShellLexer``).
///
/// Allowed: a word or part of a word that is an argument of a command that does not read its
/// arguments as names or code (``CommandRole``); a command's name; an assignment's value (unless
/// the variable is evaluated later); a redirection's target; inside `"..."`, `'...'`, `$(…)`,
/// backquotes, an unquoted here-document or a comment; a `case` word or pattern; a `for` list; the
/// word of `${x:-…}`; an operand of a fixed `test` or `[[ ]]` operator that reads strings or files.
/// Refused: arithmetic, subscripts, other `${…}` operands, names, `test` and `[[ ]]` operators,
/// `-v` and `-eq`-family operands, arguments of a command whose name expands, `$'…'`, quoted
/// here-documents, a here-document's delimiter, and anything an argument reaches through a
/// variable that one of these evaluates.
package struct ReplacementSites {
    private let analysis: SiteAnalysis

    /// `holes`: the template with each replacement string as one NUL byte.
    package init(holes: [UInt8]) {
        var lexer = ShellLexer(holes)
        lexer.readAll()
        var analysis = lexer.analysis
        analysis.finish()
        self.analysis = analysis
    }

    /// Why replacement number `index` cannot stand where it is, if it cannot.
    package func refusal(_ index: Int) -> SiteRefusal? { analysis.refusals[index] }

    /// Whether replacement `index` may be written as a bare word when its bytes need no quotes.
    func allowsBareWord(_ index: Int) -> Bool { !analysis.referencesOnly.contains(index) }
}
