import Glibc
import TestSupport
import Testing

/// Rules of the code's structure that the compiler cannot check, checked on the sources.
@Suite struct Structure {
    private static let root = String(#filePath.split(separator: "/Tests/").first!)

    /// futurerun's kit, target by target, and the kit targets each may import: arrows point down.
    private static let kit: [String: Set<String>] = [
        "FutureRunModel": [],
        "FutureRunOptions": ["FutureRunModel"],
        "FutureRunEngine": ["FutureRunModel"],
        "FutureRunOutput": ["FutureRunModel", "FutureRunEngine"],
        "FutureRunKit": ["FutureRunModel", "FutureRunOptions", "FutureRunEngine", "FutureRunOutput"],
    ]

    /// Each `.swift` file under `folder` (relative to the package), with its lines of code (doc
    /// and line comments left out), by path relative to the package.
    private static func sources(under folder: String) -> [(path: String, lines: [Substring])] {
        var found: [(String, [Substring])] = []
        var pending = [folder]
        while let next = pending.popLast() {
            guard let directory = opendir(root + "/" + next) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard !name.hasPrefix(".") else { continue }
                let path = next + "/" + name
                if entry.pointee.d_type == DT_DIR {
                    pending.append(path)
                } else if name.hasSuffix(".swift"), let text = readText(root + "/" + path) {
                    let code = text.split(separator: "\n", omittingEmptySubsequences: false).filter {
                        !$0.drop { $0 == " " }.hasPrefix("//")
                    }
                    found.append((path, code))
                }
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// The files under `folder` with a line matching `pattern`, but `allowed`.
    private static func files(
        under folder: String, matching pattern: Regex<Substring>, but allowed: Set<String> = []
    )
        -> [String]
    {
        sources(under: folder).filter { file in
            !allowed.contains(file.path) && file.lines.contains { $0.contains(pattern) }
        }.map(\.path)
    }

    @Test func theKitHasSourcesToCheck() {
        #expect(Self.kit.flatMap { Self.sources(under: "Sources/" + $0.key) }.count > 100)
    }

    /// The width providers set limits; only the governor sets a pool's width.
    @Test func onlyTheGovernorWritesAPoolsWidth() {
        let writers = Self.kit.keys.flatMap { target in
            Self.files(
                under: "Sources/" + target, matching: #/\.setWidth\(|\bpool\.width\s*=[^=]|\.pool\.width\s*=[^=]/#,
                but: ["Sources/FutureRunEngine/Run/Width/WidthGovernor.swift"])
        }
        #expect(writers == [])
    }

    /// Deciding is pure: the plan's and the configuration's code reads no file, no variable, no
    /// limit, and runs nothing. The facts are gathered, and the resources opened, in `Resources/`.
    @Test func thePlanAndTheConfigurationDoNoIO() {
        let io =
            #/TextFile\.|[^a-zA-Z.]open\(|[^a-zA-Z]stat\(|realpath\(|getenv\(|Command\(|\.current\(\)|opendir\(|mkdir\(|unlink\(|[^a-zA-Z.]read\(|[^a-zA-Z.]write\(|SystemFacts\.values|setpriority|lowerPriority|Directory\.|TemporaryNames\.|\.run\(\)/#
        #expect(Self.files(under: "Sources/FutureRunKit/Configuration", matching: io) == [])
        #expect(
            Self.files(under: "Sources/FutureRunKit/Resources", matching: io).count >= 2,
            "the pattern finds the I/O where it is")
    }

    /// Each layer imports only those below it (as Package.swift declares them); the compiler
    /// refuses a use of a layer not imported.
    @Test func eachLayerImportsOnlyTheLayersBelowIt() {
        for (target, allowed) in Self.kit {
            for file in Self.sources(under: "Sources/" + target) {
                let imported = Set(
                    file.lines.compactMap { line in
                        line.wholeMatch(of: #/(?:@testable )?import (FutureRun\w+)/#).map { String($0.1) }
                    })
                #expect(imported.subtracting(allowed) == [], "\(file.path)")
            }
        }
        let package = readText(Self.root + "/Package.swift") ?? ""
        for (target, allowed) in Self.kit {
            let declaration = package.split(separator: ".target(").first { $0.contains("name: \"\(target)\"") } ?? ""
            let declared = Set(declaration.matches(of: #/"(FutureRun\w+)"/#).map { String($0.1) }).subtracting([target])
            #expect(declared == allowed, "Package.swift: \(target) depends on \(declared.sorted())")
        }
    }

    /// The kit's parts talk through protocols and values: no downcast from one type to another.
    @Test func noDowncasts() {
        let casts = Self.kit.keys.flatMap { Self.files(under: "Sources/" + $0, matching: #/\bas[?!] /#) }
        #expect(casts == [])
    }
}
