// swift-tools-version: 6.1
import PackageDescription

// Layout (see README "Package layout"):
// - BiometricsVaultCore: the platform-free heart (vault types, state machine, protocols, errors).
// - BiometricsVault: what apps import; re-exports the core and wires the platform default backends.
// - One target per backend; Linux-only and Apple-only targets compile to nothing elsewhere.

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let linux = TargetDependencyCondition.when(platforms: [.linux])

var targets: [Target] = [
    // MARK: core (owner: foundation)
    .target(
        name: "BiometricsVaultCore",
        swiftSettings: strictSettings
    ),
    .target(
        name: "BiometricsVault",
        dependencies: [
            "BiometricsVaultCore",
            "BiometricsVaultFileStore",
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "BiometricsVaultLinuxAuth", condition: linux),
            "BiometricsVaultApple",
        ],
        swiftSettings: strictSettings
    ),
    .target(
        name: "BiometricsVaultTesting",
        dependencies: ["BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "VaultWalkthrough",
        dependencies: ["BiometricsVault", "BiometricsVaultTesting"],
        path: "Examples/VaultWalkthrough",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultCoreTests",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultTestingTests",
        dependencies: ["BiometricsVault", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),

    // MARK: encrypted file store (owner: file store)
    .target(
        name: "BiometricsVaultFileStore",
        dependencies: [
            "BiometricsVaultCore",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultFileStoreTests",
        dependencies: ["BiometricsVaultFileStore", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),

    // MARK: Secret Service store, Linux only (owner: secret service)
    .systemLibrary(
        name: "CLibSecret",
        pkgConfig: "libsecret-1",
        providers: [.apt(["libsecret-1-dev"])]
    ),
    .target(
        name: "BiometricsVaultSecretService",
        dependencies: [
            "BiometricsVaultCore",
            .target(name: "CLibSecret", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultSecretServiceTests",
        dependencies: ["BiometricsVaultSecretService", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),

    // MARK: Linux authentication: fprintd, PAM, polkit (owner: linux auth)
    .systemLibrary(
        name: "CGio",
        pkgConfig: "gio-2.0",
        providers: [.apt(["libglib2.0-dev"])]
    ),
    .systemLibrary(
        name: "CPAM",
        providers: [.apt(["libpam0g-dev"])]
    ),
    .target(
        name: "BiometricsVaultLinuxAuth",
        dependencies: [
            "BiometricsVaultCore",
            .target(name: "CGio", condition: linux),
            .target(name: "CPAM", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultLinuxAuthTests",
        dependencies: ["BiometricsVaultLinuxAuth", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),

    // MARK: Apple Keychain + LocalAuthentication (owner: apple)
    .target(
        name: "BiometricsVaultApple",
        dependencies: ["BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),

    // MARK: CLI (owner: cli)
    .executableTarget(
        name: "biometrics-vault",
        dependencies: [
            "BiometricsVault",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultCLITests",
        dependencies: ["BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),
]

let package = Package(
    name: "BiometricsVault",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "BiometricsVault", targets: ["BiometricsVault"]),
        .library(name: "BiometricsVaultTesting", targets: ["BiometricsVaultTesting"]),
        .executable(name: "biometrics-vault", targets: ["biometrics-vault"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: targets
)
