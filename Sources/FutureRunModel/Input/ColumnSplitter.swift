/// `--colsep`: splits an input line into columns. A separator without regular-expression syntax
/// (`,`, a tab written `\t`) splits the bytes as they are; any other is a `Regex` matched on the
/// line read as UTF-8 (bytes that are not UTF-8 become U+FFFD there).
///
/// Used only under ``JobSource``'s lock.
// @unchecked Sendable: Regex is not Sendable; this object is reached only through JobSource's Mutex.
package final class ColumnSplitter: @unchecked Sendable {  // safe: see the comment above
    private enum Method {
        case bytes([UInt8])
        case pattern(Regex<AnyRegexOutput>)
    }

    private let method: Method

    package init(_ separator: String) {
        let literal = separator.replacing("\\t", with: "\t")
        if !literal.contains(where: { "\\^$.|?*+()[]{}".contains($0) }), !literal.isEmpty {
            method = .bytes(Array(literal.utf8))
        } else {
            // Checked when the option was read (OptionValue.columnSeparator).
            method = .pattern(try! Regex(separator))
        }
    }

    package func columns(of line: [UInt8]) -> [[UInt8]] {
        switch method {
        case .bytes(let separator):
            var columns: [[UInt8]] = []
            var start = 0
            var index = 0
            while index + separator.count <= line.count {
                if line[index..<(index + separator.count)].elementsEqual(separator) {
                    columns.append(Array(line[start..<index]))
                    index += separator.count
                    start = index
                } else {
                    index += 1
                }
            }
            columns.append(Array(line[start...]))
            return columns
        case .pattern(let regex):
            let text = String(decoding: line, as: UTF8.self)
            return text.split(separator: regex, omittingEmptySubsequences: false).map { Array($0.utf8) }
        }
    }
}
