// swift-tools-version: 6.1
// Apple platforms only: a SwiftUI app on VaultModel (the seed's three screens). It is its own package so
// that the Linux build of BiometricsVault never sees it; it is NOT compiled by the Linux CI.
//   macOS: cd Examples/ExampleApp && BV_EXAMPLE_SIMULATED=1 swift run
//   iOS:   open this Package.swift in Xcode and run the ExampleApp scheme on a device or simulator.
import PackageDescription

let package = Package(
    name: "ExampleApp",
    platforms: [.macOS(.v14), .iOS(.v17), .visionOS(.v1)],
    dependencies: [.package(name: "BiometricsVault", path: "../..")],
    targets: [
        .executableTarget(
            name: "ExampleApp",
            dependencies: [
                .product(name: "BiometricsVault", package: "BiometricsVault"),
                .product(name: "BiometricsVaultTesting", package: "BiometricsVault"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
