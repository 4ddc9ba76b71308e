import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// The futures need nothing but the standard library, Dispatch and Synchronization: a client
/// package that depends on the `FutureCore` product alone, as a user's would, builds with warnings
/// as errors (none of FutureProcess or its C is built) and runs the seed's program.
@Suite struct FuturesAlone {
    static let seedProgram = """
        import FutureCore

        let greeting: Future<String?> = Future { "hello" }
        let answer = Future(6 * 7)
        let nothing: Future<Int?> = Future(nil)
        print(greeting.value ?? "nil", answer.value, nothing.value as Any, answer.resolved)
        """

    static let manifest = """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "seed",
            dependencies: [.package(path: "ROOT")],
            targets: [
                .executableTarget(
                    name: "seed", dependencies: [.product(name: "FutureCore", package: "IDENTITY")], path: "seed"),
            ]
        )
        """

    /// This package's root, from this file's path.
    static let root = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/")).withLeadingSlash

    @Test(.timeLimit(.minutes(5))) func thePackagesFuturesBuildAloneAndRunTheSeedsProgram() throws {
        let scratch = Scratch()
        mkdir(scratch.file("seed"), 0o700)
        scratch.write("seed/main.swift", Self.seedProgram)
        // A package at a path is known by its directory's name (futurerun in a user's checkout).
        let identity = String(Self.root.split(separator: "/").last!).lowercased()
        scratch.write("Package.swift", Self.manifest.replacing("ROOT", with: Self.root).replacing("IDENTITY", with: identity))
        let toolchains: [String] = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"]
        let swift = toolchains.first { access($0, X_OK) == 0 }
        let toolchain = try #require(swift, "no swift toolchain found to build the package")
        var build = Command([toolchain, "build", "--package-path", scratch.path, "-Xswiftc", "-warnings-as-errors"])
        build.timeout = .seconds(280)
        let built = build.run().value
        let log = String(decoding: built.stdout.bytes() + built.stderr.bytes(), as: UTF8.self)
        try #require(built.status == .exited(0), "\(log)")
        let run = Command([scratch.file(".build/debug/seed")]).run().value
        #expect(String(decoding: run.stdout.bytes(), as: UTF8.self) == "hello 42 nil true\n")
        // Only the futures were built: neither the process engine nor its C.
        let modules = Command.shell("ls \(quoted(scratch.file(".build/debug/Modules")))").run().value
        let names = String(decoding: modules.stdout.bytes(), as: UTF8.self)
        #expect(names.contains("FutureCore.swiftmodule") && !names.contains("FutureProcess"), "\(names)")
    }
}

extension String {
    fileprivate var withLeadingSlash: String { hasPrefix("/") ? self : "/" + self }
}
