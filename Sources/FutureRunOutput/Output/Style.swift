import FutureRunEngine
import FutureRunModel

/// How futurerun's own messages look: colors (only when wanted) and text made safe for a terminal.
package struct Style: Sendable {
    package let colors: Bool

    package init(colors: Bool) { self.colors = colors }

    /// Whether to color: `--color always|never`, else only on a terminal without `NO_COLOR` or
    /// `TERM=dumb`.
    package static func wantsColor(_ choice: Options.Color, isTerminal: Bool, environment: [String: String]) -> Bool {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto:
            if environment["NO_COLOR"].map({ !$0.isEmpty }) == true { return false }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }

    func green(_ text: String) -> String { paint(text, "32") }
    func red(_ text: String) -> String { paint(text, "31") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func dim(_ text: String) -> String { paint(text, "2") }
    package func bold(_ text: String) -> String { paint(text, "1") }

    /// A color from a small palette, picked by job number (for `--live` prefixes).
    func palette(_ text: String, index: Int) -> String {
        let codes = ["36", "35", "34", "33", "32", "96", "95", "94"]
        return paint(text, codes[index % codes.count])
    }

    private func paint(_ text: String, _ code: String) -> String {
        colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// How many characters of `text` show (color sequences `ESC [ ... letter` do not).
    static func visibleCount(_ text: String) -> Int {
        var inEscape = false
        return text.reduce(into: 0) { count, character in
            if character == "\u{1B}" {
                inEscape = true
            } else if inEscape {
                if character.isLetter { inEscape = false }
            } else {
                count += 1
            }
        }
    }

    /// `text` cut to at most `limit` visible characters (color sequences do not count), its end
    /// marked `…` when cut; a color open at the cut is closed.
    static func truncate(_ text: String, toVisible limit: Int) -> String {
        guard limit > 0 else { return "" }
        guard visibleCount(text) > limit else { return text }
        var visible = 0
        var result = ""
        var inEscape = false
        var cut = false
        for character in text {
            if character == "\u{1B}" { inEscape = true }
            if inEscape {
                result.append(character)
                if character.isLetter, character != "\u{1B}" { inEscape = false }
                continue
            }
            if visible == limit - 1 {
                cut = true
                break
            }
            result.append(character)
            visible += 1
        }
        return result + (cut ? "…" : "") + (result.contains("\u{1B}[") ? "\u{1B}[0m" : "")
    }
}
