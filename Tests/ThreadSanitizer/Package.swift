// swift-tools-version: 6.1
// The concurrency tests under ThreadSanitizer (scripts/extra-tests/10-tsan.sh). A package of its own so that
// the sanitized build compiles only what the tests import: the core and BiometricsVaultTesting, not the
// backends and swift-crypto that the package's whole test build needs. The package's own suite runs the
// same tests (target BiometricsVaultConcurrencyTests). The core is imported as BiometricsVaultTesting's
// dependency, so the tests read the API an app sees without the backends of the BiometricsVault product.
import PackageDescription

let package = Package(
    name: "BiometricsVaultThreadSanitizer",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "BiometricsVault", path: "../..")],
    targets: [
        .testTarget(
            name: "ConcurrencyTests",
            dependencies: [.product(name: "BiometricsVaultTesting", package: "BiometricsVault")],
            path: "ConcurrencyTests",
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        )
    ]
)
