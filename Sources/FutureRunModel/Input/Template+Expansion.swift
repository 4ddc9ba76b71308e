extension Template {
    /// What one job-script variable holds: an argument, transformed.
    private struct VariableKey: Hashable {
        let argument: Int
        let transform: Transform
    }

    /// The command line for one job: `arguments` (one per list, column or `-n` argument) put in as
    /// quoted words, or as references to variables that a head of assignments sets.
    /// - Parameter firstVariable: the number of the first variable (`_fr1`); filling measures an
    /// argument's cost with the numbers it will have in a long line.
    func expand(arguments: [[UInt8]], jobNumber: Int, slot: Int, firstVariable: Int = 1) -> [UInt8] {
        var head: [UInt8] = []
        var line: [UInt8] = []
        /// The variables assigned so far, by argument and transform, and their numbers.
        var variables: [VariableKey: Int] = [:]
        func put(_ list: Int, _ transform: Transform, _ placement: Placement) {
            let argument = Template.argument(list, of: arguments).index
            // A list with no argument for this job (`-N2` over an odd count) leaves no word, as in
            // GNU parallel: `echo {1} {2}` over `7` is `echo 7`.
            guard arguments.indices.contains(argument) else { return }
            let value: [UInt8]
            switch self.value(transform, of: argument, in: arguments, jobNumber: jobNumber) {
            case .value(let computed, quoted: true): value = computed
            case .value(let code, quoted: false):
                line += code
                return
            case .skip, .failed: return
            }
            guard case .reference(let site) = placement else {
                line += ShellQuoting.word(value)
                return
            }
            let number: Int
            if let known = variables[VariableKey(argument: argument, transform: transform)] {
                number = known
            } else {
                number = variables.count + firstVariable
                variables[VariableKey(argument: argument, transform: transform)] = number
                head +=
                    (number > firstVariable ? [0x20] : []) + ShellQuoting.variable(number) + [UInt8(ascii: "=")]
                    + ShellQuoting.word(value)
            }
            line += ShellQuoting.reference(to: ShellQuoting.variable(number), at: site)
        }
        /// `part` with `{}` standing for `only` argument, or for all of them.
        func render(_ part: Part, only: Int? = nil) {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber: line += Array(String(jobNumber).utf8)
            case .slot: line += Array(String(slot).utf8)
            case .argument(let list?, let transform, let placement): put(list, transform, placement)
            case .argument(nil, let transform, let placement):
                for argument in only.map({ [$0] }) ?? Array(arguments.indices) {
                    if argument > (only ?? 0) { line.append(0x20) }
                    put(argument, transform, placement)
                }
            }
        }
        var index = 0
        while index < parts.count {
            guard let word = repeatedWords.first(where: { $0.lowerBound == index }) else {
                render(parts[index])
                index += 1
                continue
            }
            for argument in arguments.indices {
                if argument > 0 { line.append(0x20) }
                for part in parts[word] { render(part, only: argument) }
            }
            index = word.upperBound
        }
        if !hasReplacement {
            for argument in arguments.indices {
                line.append(0x20)
                put(argument, .whole, appended)
            }
        }
        return head.isEmpty ? line : head + Array("; ".utf8) + line
    }

    /// The template with the replacement strings put in as they are, unquoted: for a job header
    /// (`@build-{}`), whose words are names to check, not shell code.
    /// `joiner` separates the arguments of `{}`: a comma in a header (names hold no blanks), a
    /// space in a `--tagstring`.
    package func expandUnquoted(arguments: [[UInt8]], jobNumber: Int, joiner: UInt8 = 0x2C) -> [UInt8] {
        var line: [UInt8] = []
        for part in parts {
            switch part {
            case .literal(let bytes): line += bytes
            case .jobNumber, .slot: line += Array(String(jobNumber).utf8)
            case .argument(let list, let transform, _):
                let indices = list.map { [Template.argument($0, of: arguments).index] } ?? Array(arguments.indices)
                let values = indices.map { index in
                    // A list this job has no argument of is an empty one, transformed (`{2//}`: `.`).
                    guard arguments.indices.contains(index) else { return Template.apply(transform, to: []) }
                    guard case .value(let value, _) = value(transform, of: index, in: arguments, jobNumber: jobNumber) else {
                        return [UInt8]()
                    }
                    return value
                }
                line += Array(values.joined(separator: [joiner]))
            }
        }
        return line
    }

    /// Whether one of its Perl expressions mentions `word` (such as `total_jobs`).
    func perlUses(_ word: String) -> Bool {
        parts.contains { part in
            if case .argument(_, .perl(let expression), _) = part { expression.contains(word) } else { false }
        }
    }

    /// Argument `index` of `arguments`, transformed (by perl, for an expression).
    private func value(_ transform: Transform, of index: Int, in arguments: [[UInt8]], jobNumber: Int) -> PerlCoprocess.Value {
        guard case .perl(let expression) = transform, let perl else {
            return .value(Template.apply(transform, to: arguments[index]), quoted: true)
        }
        return perl.evaluate(expression, index: index, of: arguments, jobNumber: jobNumber)
    }

    /// Argument `list` (from the end when negative) and its position; no bytes if there is none.
    private static func argument(_ list: Int, of arguments: [[UInt8]]) -> (index: Int, bytes: [UInt8]) {
        let index = list < 0 ? arguments.count + list : list
        return (index, arguments.indices.contains(index) ? arguments[index] : [])
    }

    package static func apply(_ transform: Transform, to argument: [UInt8]) -> [UInt8] {
        let slash = argument.lastIndex(of: UInt8(ascii: "/"))
        let baseStart = slash.map { $0 + 1 } ?? 0
        func dropExtension(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > bytes.startIndex else { return Array(bytes) }
            return Array(bytes[..<dot])
        }
        switch transform {
        case .whole: return argument
        case .baseName: return Array(argument[baseStart...])
        case .directory:
            guard let slash else { return [UInt8(ascii: ".")] }
            return slash == 0 ? [UInt8(ascii: "/")] : Array(argument[..<slash])
        case .noExtension: return Array(argument[..<baseStart]) + dropExtension(argument[baseStart...])
        case .baseNameNoExtension: return dropExtension(argument[baseStart...])
        case .withoutExtensions(let count):
            return Array(argument[..<baseStart]) + splitExtensions(argument[baseStart...], count).stem
        case .baseNameWithoutExtensions(let count): return splitExtensions(argument[baseStart...], count).stem
        case .directoryOrEmpty:
            // As GNU parallel: everything before the last slash, so `/r` has an empty directory.
            guard let slash else { return [] }
            return Array(argument[..<slash])
        case .extensions(let count): return splitExtensions(argument[baseStart...], count).extensions
        case .edit(let edit): return edit.apply(to: argument)
        case .perl: return argument  // evaluated by the template's perl, never here
        }
    }

    /// A base name's last `count` extensions and what is before them, if it has that many (and
    /// something before them); else the name whole and no extensions.
    private static func splitExtensions(_ base: ArraySlice<UInt8>, _ count: Int) -> (stem: [UInt8], extensions: [UInt8]) {
        let parts = base.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count > count, !parts[0].isEmpty else { return (Array(base), []) }
        let stem = parts.dropLast(count).joined(separator: [UInt8(ascii: ".")])
        let extensions = parts.suffix(count).joined(separator: [UInt8(ascii: ".")])
        return (Array(stem), Array(extensions))
    }
}
