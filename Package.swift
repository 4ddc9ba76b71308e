// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "futurerun",
    products: [
        .library(name: "FutureCore", targets: ["FutureCore"]),
        .executable(name: "futurerun", targets: ["futurerun"]),
    ],
    targets: [
        // The only C in the package, FutureCore's: libc calls Swift's Glibc module does not expose.
        .target(name: "CFutureShims"),
        .target(name: "FutureCore", dependencies: ["CFutureShims"], swiftSettings: strict),
        .target(name: "FutureRunKit", dependencies: ["FutureCore"], swiftSettings: strict),
        .executableTarget(name: "futurerun", dependencies: ["FutureRunKit"], swiftSettings: strict),
        // `make generate`: the completions and the man page's options, rendered from the option table.
        .executableTarget(name: "generate-usage", dependencies: ["FutureRunKit"], swiftSettings: strict),
        .executableTarget(
            name: "futurecore-example", dependencies: ["FutureCore"], path: "Examples/FutureCoreExample",
            swiftSettings: strict),
        // What every test target shares: scratch directories, quoting, polling against hangs.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "FutureCoreTests", dependencies: ["FutureCore", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "FutureRunKitTests", dependencies: ["FutureRunKit", "TestSupport"], exclude: ["Expected"], swiftSettings: strict
        ),
        .testTarget(name: "futurerunTests", dependencies: ["futurerun", "TestSupport"], swiftSettings: strict),
    ]
)
