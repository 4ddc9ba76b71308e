// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "futurerun",
    // The futures build wherever Swift 6 does; the process engine is Linux's (epoll, pidfd).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // The futures alone (FutureCore: any Swift 6 platform) and commands as futures
        // (FutureProcess: Linux), as swift-nio splits NIOCore from NIOPosix.
        .library(name: "FutureCore", targets: ["FutureCore"]),
        .library(name: "FutureProcess", targets: ["FutureProcess"]),
        .executable(name: "futurerun", targets: ["futurerun"]),
    ],
    targets: [
        // The only C in the package, the process engine's: libc calls Swift's Glibc module does not
        // expose. The underscore: no client imports it.
        .target(name: "_CFutureShims"),
        .target(name: "FutureCore", swiftSettings: strict),
        .target(name: "FutureProcess", dependencies: ["FutureCore", "_CFutureShims"], swiftSettings: strict),
        // futurerun's kit in layers the compiler checks (an arrow the wrong way does not build):
        // the model (options' values, jobs, their input and outcome, formats, the machine's facts);
        // above it the option grammar, the engine side (scheduler, launchers, hosts, Slurm, cache)
        // and the output side (printers, reports); the kit joins them into a run.
        .target(name: "FutureRunModel", dependencies: ["FutureCore", "FutureProcess", "_CFutureShims"], swiftSettings: strict),
        .target(name: "FutureRunOptions", dependencies: ["FutureRunModel", "FutureProcess"], swiftSettings: strict),
        .target(
            name: "FutureRunEngine", dependencies: ["FutureRunModel", "FutureCore", "FutureProcess", "_CFutureShims"],
            swiftSettings: strict),
        .target(
            name: "FutureRunOutput", dependencies: ["FutureRunModel", "FutureRunEngine", "FutureCore", "FutureProcess"],
            swiftSettings: strict),
        .target(
            name: "FutureRunKit",
            dependencies: [
                "FutureRunModel", "FutureRunOptions", "FutureRunEngine", "FutureRunOutput", "FutureCore", "FutureProcess",
                "_CFutureShims",
            ], swiftSettings: strict),
        .executableTarget(name: "futurerun", dependencies: ["FutureRunKit"], swiftSettings: strict),
        // `make generate`: the completions and the man page's options, rendered from the option table.
        .executableTarget(name: "generate-usage", dependencies: ["FutureRunOptions"], swiftSettings: strict),
        .executableTarget(
            name: "futurecore-example", dependencies: ["FutureCore", "FutureProcess"], path: "Examples/FutureCoreExample",
            swiftSettings: strict),
        // FutureCore beside Swift concurrency on the same work (make bench-futures).
        .executableTarget(
            name: "futurecore-bench", dependencies: ["FutureCore"], path: "bench/futurecore", swiftSettings: strict),
        // What every test target shares: scratch directories, quoting, polling against hangs.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "FutureCoreTests", dependencies: ["FutureCore", "FutureProcess", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "FutureRunKitTests",
            dependencies: [
                "FutureRunKit", "FutureRunModel", "FutureRunOptions", "FutureRunEngine", "FutureRunOutput", "FutureProcess",
                "TestSupport",
            ], exclude: ["Expected"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "futurerunTests", dependencies: ["futurerun", "TestSupport"], exclude: ["Schemas"], swiftSettings: strict),
    ]
)
