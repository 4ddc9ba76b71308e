import FutureProcess
import Testing

@testable import FutureRunEngine
@testable import FutureRunKit
@testable import FutureRunModel
@testable import FutureRunOptions
@testable import FutureRunOutput

@Suite struct OptionTable {
    @Test func everyNameIsDeclaredOnce() {
        let longs = OptionDeclaration.all.flatMap(\.longNames)
        let shorts = OptionDeclaration.all.compactMap(\.shortName)
        #expect(Set(longs).count == longs.count)
        #expect(Set(shorts).count == shorts.count)
    }

    @Test func everyValueOptionHasAnExampleThatParses() throws {
        for declaration in OptionDeclaration.all where declaration.value != nil && declaration.longNames[0] != "each" {
            // As a shell splits the example, quotes and all.
            let words = try OptionValue.commandWords(declaration.example, option: declaration.displayName)
            let rest = words.contains("--pipe") ? ["wc"] : ["--each", "echo {}", "x"]
            // What the option works only with (Options.validate()).
            let companions = ["shard-timings": ["--shard", "1/2"]]
            let needed = companions[declaration.longNames[0]] ?? []
            let arguments = (needed + words + (declaration.longNames[0] == "arg-file" ? [] : rest)).map {
                Array($0.utf8)
            }
            #expect(throws: Never.self, "\(declaration.example)") { _ = try OptionParser.parse(arguments) }
        }
    }

    @Test func helpListsEveryOptionUnderItsSection() {
        let help = Help.text
        for declaration in OptionDeclaration.all {
            #expect(help.contains(declaration.displayName), "\(declaration.displayName)")
            for alias in declaration.longNames.dropFirst() { #expect(help.contains("--" + alias)) }
        }
        #expect(help.contains("\nINPUT OPTIONS\n  -a, --arg-file FILE  read jobs"))
    }

    @Test func manPageAndCompletionsNameEveryOption() {
        let page = ManPage.optionsSection
        for declaration in OptionDeclaration.all {
            let roffName = "\\fB" + declaration.displayName.replacing("-", with: "\\-") + "\\fR"
            #expect(page.contains(roffName), "\(roffName)")
            #expect(Completions.bash.contains(" " + declaration.displayName))
            #expect(Completions.zsh.contains(declaration.displayName))
            #expect(Completions.fish.contains(" -l " + declaration.longNames[0] + " "))
        }
    }

    @Test func manTextEscapesRoff() {
        #expect(ManPage.text("a `-x` \\ b") == "a \\fB\\-x\\fR \\e b")
        #expect(ManPage.escape(".starts") == "\\&.starts")
    }

    @Test func summariesStopBeforeTheExample() {
        let byName = Dictionary(uniqueKeysWithValues: OptionDeclaration.all.map { ($0.longNames[0], $0) })
        #expect(byName["jobs"]!.summary == "run N jobs at once")
        #expect(byName["link"]!.summary == "pair the ::: lists element by element instead of combining them")
    }

    /// The checked-in completions and man page are what the table renders: run `make generate`
    /// after changing an option.
    @Test func generatedFilesAreUpToDate() {
        let root = String(#filePath.split(separator: "/Tests/").first!)
        #expect(UsageFiles.rendered(root: root)?.count == 4)
        #expect(UsageFiles.stale(root: root) == [], "stale: run make generate")
    }
}

@Suite struct CompatibilityTable {
    /// The README's list of GNU parallel options futurerun refuses is the table that refuses them.
    @Test func theReadmesRefusedOptionsAreGNUFormsTable() throws {
        let root = String(#filePath.split(separator: "/Tests/").first!)
        let readme = try #require(TextFile.read(root + "/README.md"))
        let list = try #require(readme.split(separator: "\n").first { $0.hasPrefix("  `--arg-file-sep`") })
        let listed = list.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(listed == GNUForms.options.keys.sorted())
    }
}

@Suite struct LibrarySurface {
    /// The kit's public face is what its two clients, `main.swift` and `generate-usage`, call:
    /// the rest is `package`, shared by the kit's layers and its tests.
    @Test func onlyWhatTheTwoClientsUseIsPublic() throws {
        let root = String(#filePath.split(separator: "/Tests/").first!)
        let listing = Command.shell("grep -rh '^ *public ' \(root)/Sources/FutureRun[A-Z]* | sed 's/ *{$//; s/^ *//' | sort")
        let declarations = String(decoding: listing.run().value.stdout.bytes(), as: UTF8.self).split(separator: "\n")
        #expect(
            declarations == [
                "public enum FutureRun", "public enum UsageFiles",
                "public static func main(_ arguments: [[UInt8]], programName: String = \"futurerun\") -> Int32",
                "public static func prepare()",
                "public static func write(root: String) throws -> [String]",
            ])
    }
}

@Suite struct Version {
    @Test func theVersionIsDeclaredOnceAndTheChangelogFollowsIt() throws {
        let root = String(#filePath.split(separator: "/Tests/").first!)
        let changelog = try #require(TextFile.read(root + "/CHANGELOG.md"))
        let newest = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        #expect(Help.version == "futurerun " + newest.dropFirst(3).prefix { $0 != " " })
        #expect(TextFile.read(root + "/" + UsageFiles.manPage)?.contains("\"\(Help.version)\"") == true)
    }
}
