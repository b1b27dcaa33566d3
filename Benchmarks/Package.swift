// swift-tools-version: 6.1
// The package's benchmarks, a package of their own beside it (as swift-nio's Benchmarks/): they are built
// only by their scripts (Benchmarks/run-*.sh, in release), so the package that apps depend on declares
// none of them. They depend on BiometricsVault by path, and import its backend modules (built as part of
// the BiometricsVault product) to measure them directly.
// The cold-start benchmark is a target of the package itself (Stress/ColdStartBenchmark): CI's cold-start
// stress runs it from the tests' build.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let linux = TargetDependencyCondition.when(platforms: [.linux])
let vault = Target.Dependency.product(name: "BiometricsVault", package: "BiometricsVault")

let package = Package(
    name: "BiometricsVaultBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "BiometricsVault", path: "..")],
    targets: [
        // Durable write and read latency against bare POSIX baselines: run-file-store.sh.
        .executableTarget(name: "FileStoreBenchmark", dependencies: [vault], path: "FileStoreBenchmark", swiftSettings: strictSettings),
        // libsecret itself: only for SecretServiceBenchmark, which compares the store with a raw libsecret
        // lookup. Its flags come from this package's libsecret-headers.pc (a .pc path SwiftPM reads as is),
        // not from libsecret-1.pc: that one requires gio-2.0, whose private requirement gmodule adds
        // `-pthread`, a flag SwiftPM drops with a warning on every build. The headers need libsecret's
        // directory and GObject's.
        .systemLibrary(
            name: "CLibSecret",
            path: "CLibSecret",
            pkgConfig: "\(Context.packageDirectory)/CLibSecret/libsecret-headers.pc",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // Vault read vs raw secret_password_lookupv_sync: run-secret-service.sh.
        .executableTarget(
            name: "SecretServiceBenchmark",
            dependencies: [
                vault,
                .product(name: "BiometricsVaultTesting", package: "BiometricsVault"),
                .target(name: "CLibSecret", condition: linux),
            ],
            path: "SecretServiceBenchmark",
            swiftSettings: strictSettings
        ),
    ]
)
