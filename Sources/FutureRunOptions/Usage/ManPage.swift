import FutureRunModel

/// The man page's OPTIONS section, rendered from ``OptionDeclaration/all`` into roff. The rest of
/// docs/futurerun.1 is written by hand; this part sits between its two `generated` markers.
package enum ManPage {
    static let beginMarker =
        #".\" BEGIN OPTIONS: generated from the option table by 'make generate'; edit OptionTable.swift"#
    package static let endMarker = #".\" END OPTIONS"#

    /// The OPTIONS section, markers included.
    static var optionsSection: String {
        var roff = beginMarker + "\n.SH OPTIONS\n"
        for section in OptionDeclaration.Section.allCases {
            roff += ".SS \(section.rawValue)\n"
            for declaration in OptionDeclaration.all where declaration.section == section {
                roff += ".TP\n" + heading(declaration) + "\n" + text(declaration.manual) + "\n"
            }
        }
        return roff + endMarker + "\n"
    }

    /// `docs/futurerun.1` as it should be: `page` with its OPTIONS section rendered anew and the
    /// version of its `.TH` header line that of ``Help/version``.
    static func updating(_ page: String) -> String? {
        guard let begin = page.firstRange(of: beginMarker), let end = page.firstRange(of: endMarker + "\n") else { return nil }
        let rendered = String(page[..<begin.lowerBound]) + optionsSection + String(page[end.upperBound...])
        var lines = rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix(".TH ") }) else { return nil }
        var fields = lines[header].split(separator: "\"", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 5 else { return nil }
        fields[3] = Help.version
        lines[header] = fields.joined(separator: "\"")
        return lines.joined(separator: "\n")
    }

    /// `\fB\-j\fR, \fB\-\-jobs\fR \fIN\fR`.
    private static func heading(_ declaration: OptionDeclaration) -> String {
        var names: [String] = []
        names += declaration.shortNames.map { bold("-\($0)") }
        names += declaration.longNames.map { bold("--" + $0) }
        var heading = names.joined(separator: ", ")
        if let value = declaration.value { heading += " \\fI" + escape(value.placeholder) + "\\fR" }
        return heading
    }

    private static func bold(_ text: String) -> String { "\\fB" + escape(text) + "\\fR" }

    /// Plain text to roff: `` `x` `` in bold, special characters escaped, no line starting a request.
    package static func text(_ text: String) -> String {
        var roff = ""
        var literal = false
        for piece in text.split(separator: "`", omittingEmptySubsequences: false) {
            roff += literal ? bold(String(piece)) : escape(String(piece))
            literal.toggle()
        }
        return roff
    }

    package static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case "'" where escaped.isEmpty, "." where escaped.isEmpty: escaped += "\\&" + String(character)
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
