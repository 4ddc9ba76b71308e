/// The checked-in files rendered from the option table, by path from the package root: what
/// `make generate` writes and what a test compares with the files in the tree.
public enum UsageFiles {
    /// The man page, whose OPTIONS section is rendered into the hand-written rest.
    public static let manPage = "docs/futurerun.1"

    /// The completion files, rendered whole.
    public static let completions: [(path: String, contents: String)] = [
        ("completions/futurerun.bash", Completions.bash),
        ("completions/_futurerun", Completions.zsh),
        ("completions/futurerun.fish", Completions.fish),
    ]
}
