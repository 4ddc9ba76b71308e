import FutureRunModel

/// How a long option that is not spelled out is read, as GNU parallel (Perl's Getopt::Long) reads
/// it: a prefix of one option's names alone is that option (`--job` is `--jobs`); else the name
/// nearest to it, one or two edits away, is suggested (`--jbos`: did you mean `--jobs`?). A plain
/// value over the names; tested without parsing.
package struct OptionSpelling {
    /// Each option's long names, `--` included, grouped by option.
    package let names: [[String]]

    /// The options `typed` is a prefix of: the indices of their groups in ``names`` (one: that
    /// option; more: ambiguous).
    package func options(abbreviatedAs typed: String) -> [Int] {
        guard typed.count >= 3 else { return [] }
        return names.indices.filter { group in names[group].contains { $0.hasPrefix(typed) } }
    }

    /// The name nearest to `typed`, if one is at most two edits away (and nearer than the rest).
    package func suggestion(for typed: String) -> String? {
        let scored = names.joined().map { ($0, Self.distance($0, typed)) }.filter { $0.1 <= 2 }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return scored.filter { $0.1 == best.1 }.count == 1 ? best.0 : nil
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
    package static func distance(_ a: String, _ b: String) -> Int {
        let (x, y) = (Array(a), Array(b))
        var rows = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { rows[i][0] = i }
        for j in 0...y.count { rows[0][j] = j }
        for i in stride(from: 1, through: x.count, by: 1) {
            for j in stride(from: 1, through: y.count, by: 1) {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[x.count][y.count]
    }
}
