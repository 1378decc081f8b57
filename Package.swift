// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "weathertag",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "weathertag", targets: ["weathertag"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    ],
    targets: [
        // C shims: typed wrappers over variadic or macro-only C APIs.
        // libcurl is loaded at its first use (`CCurl.h` says why): linked with libdl's `dlopen`, not with -lcurl.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // libgps too is loaded at its first use (`CGPS.c` says why).
        .target(name: "CGPS", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]),
        .target(name: "CLinux"),
        .target(name: "CYAML", linkerSettings: [.linkedLibrary("yaml")]),
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "CFuzzer"),

        // The domain: positions, weather, configuration, cache policy, stamper, formatting, routing.
        // Builds and tests without curl, gpsd or sockets.
        .target(
            name: "WeathertagCore",
            dependencies: [
                "CYAML",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // Adapters around the core.
        .target(
            name: "WeathertagHTTP",
            dependencies: [
                "CCurl", "WeathertagCore",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WeathertagSQLite",
            dependencies: ["CSQLite", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WeathertagGPSD",
            dependencies: [
                "CGPS", "WeathertagCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WeathertagDaemon",
            dependencies: [
                "CLinux", "WeathertagCore", "WeathertagGPSD", "WeathertagSQLite",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),

        // The one executable: argument parsing and wiring.
        .executableTarget(
            name: "weathertag",
            dependencies: [
                "WeathertagCore", "WeathertagDaemon", "WeathertagHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),

        // Fuzzing: the checks, and one executable per target (`make fuzz`; a corpus replayer otherwise).
        .target(
            name: "WeathertagFuzzing",
            dependencies: [
                "CFuzzer", "WeathertagCore", "WeathertagDaemon",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-stamper", dependencies: ["WeathertagFuzzing"], path: "Sources/Fuzz/fuzz-stamper",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-request", dependencies: ["WeathertagFuzzing"], path: "Sources/Fuzz/fuzz-request",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-frontmatter", dependencies: ["WeathertagFuzzing"], path: "Sources/Fuzz/fuzz-frontmatter",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "fuzz-json", dependencies: ["WeathertagFuzzing"], path: "Sources/Fuzz/fuzz-json",
            swiftSettings: strictSettings
        ),

        .target(
            name: "WeathertagTestSupport",
            dependencies: ["WeathertagCore", "WeathertagDaemon"],
            path: "Tests/WeathertagTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WeathertagCoreTests",
            dependencies: [
                "WeathertagCore", "WeathertagTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            exclude: ["Exports", "Golden", "Recorded", "YAMLSuite"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WeathertagDaemonTests",
            dependencies: [
                "WeathertagDaemon", "WeathertagCore", "WeathertagFuzzing", "WeathertagHTTP", "WeathertagSQLite",
                "WeathertagTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WeathertagSQLiteTests",
            dependencies: ["WeathertagSQLite", "CSQLite", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WeathertagIntegrationTests",
            // "weathertag" is imported by no file: it is there so that `swift test` builds the binary these tests run.
            dependencies: [
                "weathertag", "WeathertagCore", "WeathertagDaemon", "WeathertagTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
