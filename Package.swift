// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RevenueDot",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "revenuedot", targets: ["revenuedot"]),
        .library(name: "AppStore", targets: ["AppStore"]),
        .library(name: "Storage", targets: ["Storage"]),
    ],
    targets: [
        // MARK: - C libraries from Debian, one system-library target each (module.modulemap + shim.h).
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CZstd", pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]),

        // MARK: - RevenueDot modules
        // A JSON library: parser, writer, value, and Codable over them (sorted keys, exact numbers).
        .target(
            name: "JSON"),
        // OpenSSL in one thin adapter: keys, signatures, certificates, digests; Base64 and PEM.
        .target(
            name: "Crypto",
            dependencies: ["COpenSSL"]),
        // Apple's App Store models, JWS, the signed-data verifier and signer.
        .target(
            name: "AppStore",
            dependencies: ["Crypto", "JSON", "Threads"]),
        .target(
            name: "Subscriptions",
            dependencies: ["AppStore", "JSON", "Threads"]),
        // Threads that the OS lists under their names, locks, deadlines, and UNIX time as text.
        .target(
            name: "Threads"),
        .target(
            name: "HTTP",
            dependencies: ["CMicroHTTPD", "Threads"]),
        .target(
            name: "Storage",
            dependencies: [
                "CSQLite", "CPostgres", "CZstd", "AppStore", "Crypto", "JSON", "Subscriptions", "Threads",
            ],
            exclude: ["Schema/schema.sql"]),
        // The server: service, ingest, API, events, scheduler, Apple's API workers, metrics, config.
        .target(
            name: "Server",
            dependencies: [
                "AppStore", "AdvancedCommerce", "AppStoreServerAPI", "AppStoreServerAPISimulator", "HTTP", "Storage",
                "Subscriptions", "LoopbackClient", "Threads", "Crypto", "JSON",
            ],
            plugins: ["BuildCommit"]),
        // Records the git commit a build was made from (`revenuedot --version`, /health, /metrics).
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // The App Store Server API: models, requests as values, and a client over LoopbackClient.
        .target(
            name: "AppStoreServerAPI",
            dependencies: ["AppStore", "LoopbackClient", "Crypto", "JSON"]),
        // A local App Store Server API that checks tokens as Apple does: tests and rehearsals.
        .target(
            name: "AppStoreServerAPISimulator",
            dependencies: ["AppStore", "AppStoreServerAPI", "HTTP", "Crypto", "JSON"]),
        // Advanced Commerce in-app requests: models and Apple's validation rules.
        .target(
            name: "AdvancedCommerce",
            dependencies: ["AppStore", "Crypto", "JSON"]),
        // A small blocking HTTP/1.1 client, plain or TLS (OpenSSL), to any host: every webhook,
        // tests and benchmarks. (Named for its first use, against our own server on loopback.)
        .target(
            name: "LoopbackClient",
            dependencies: ["COpenSSL", "Threads"]),
        // The command line, the App Store simulator and the notification reference.
        .target(
            name: "Tools",
            dependencies: [
                "Server", "AppStore", "AppStoreServerAPI", "AppStoreServerAPISimulator", "AdvancedCommerce", "Crypto", "HTTP",
                "JSON", "LoopbackClient", "Storage", "Subscriptions", "Threads",
            ]),
        .executableTarget(
            name: "revenuedot",
            dependencies: ["Tools"]),
        .executableTarget(
            name: "revenuedot-bench",
            dependencies: [
                "AppStore", "AppStoreServerAPISimulator", "LoopbackClient", "HTTP", "Threads", "Crypto", "JSON", "Server",
                "Storage",
            ],
            path: "Benchmarks/Sources/revenuedot-bench"),

        // MARK: - Fuzz targets (scripts/fuzz.sh builds them with libFuzzer; the normal build replays inputs)
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["AppStore", "CLibFuzzer", "Crypto"], path: "Fuzz/Sources/FuzzSupport"),
        .executableTarget(
            name: "fuzz-json", dependencies: ["AppStore", "FuzzSupport", "JSON"], path: "Fuzz/Sources/fuzz-json"),
        .executableTarget(
            name: "fuzz-jws", dependencies: ["AppStore", "FuzzSupport", "Storage", "Crypto", "JSON"],
            path: "Fuzz/Sources/fuzz-jws"),
        .executableTarget(
            name: "fuzz-certificate", dependencies: ["AppStore", "FuzzSupport", "Crypto"], path: "Fuzz/Sources/fuzz-certificate"),
        .executableTarget(
            name: "fuzz-verifier", dependencies: ["AppStore", "FuzzSupport"], path: "Fuzz/Sources/fuzz-verifier"),
        .executableTarget(
            name: "fuzz-response-reader", dependencies: ["LoopbackClient", "FuzzSupport"],
            path: "Fuzz/Sources/fuzz-response-reader"),
        .executableTarget(
            name: "fuzz-router", dependencies: ["HTTP", "FuzzSupport"], path: "Fuzz/Sources/fuzz-router"),

        // MARK: - Tests
        // App Store payloads signed at test time over test chains, shared by the test targets.
        .target(
            name: "AppStoreFixtures",
            dependencies: ["AppStore", "Crypto"],
            path: "Tests/AppStoreFixtures"),
        // A PostgreSQL cluster of a test's own, stopped and started under RevenueDot.
        .target(
            name: "PostgresFixtures",
            dependencies: ["Storage"],
            path: "Tests/PostgresFixtures"),
        .testTarget(
            name: "AppStoreTests",
            dependencies: ["AppStore", "AppStoreFixtures", "Crypto", "JSON"],
            resources: [.copy("Resources")]),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "Tools", "AppStore", "AppStoreServerAPI", "AppStoreServerAPISimulator", "Storage", "LoopbackClient",
                "HTTP",
                "AdvancedCommerce", "Crypto", "JSON", "Subscriptions", "Threads", "PostgresFixtures",
            ]),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: [
                "AppStoreServerAPI", "AppStoreServerAPISimulator", "AppStore", "HTTP", "LoopbackClient", "Crypto", "JSON",
            ]),
        .testTarget(
            name: "AdvancedCommerceTests",
            dependencies: ["AdvancedCommerce", "AppStore", "Crypto", "JSON"]),
        .testTarget(
            name: "SubscriptionsTests",
            dependencies: ["Subscriptions", "AppStore", "Crypto", "JSON", "Threads"]),
        .testTarget(
            name: "HTTPTests",
            dependencies: ["HTTP", "LoopbackClient"]),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "AppStore", "AppStoreFixtures", "Crypto", "JSON", "Subscriptions", "Threads", "PostgresFixtures",
            ]),
        .testTarget(
            name: "ThreadsTests",
            dependencies: ["Threads"]),
        .testTarget(
            name: "PlatformTests",
            dependencies: ["CSQLite", "CPostgres", "CMicroHTTPD", "COpenSSL"]),
    ],
    swiftLanguageModes: [.v6]
)
