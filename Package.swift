// swift-tools-version: 6.1
import PackageDescription

// Layout (see README "Package layout"):
// - BiometricsVaultCore: the platform-free heart (vault types, state machine, protocols, errors).
// - BiometricsVault: what apps import; re-exports the core and wires the platform default backends.
// - One target per backend; Linux-only and Apple-only targets compile to nothing elsewhere.
// - The CLI, the tests, and the programs that CI runs from the tests' build: the helpers the tests spawn, the
//   fuzz targets and the stress workers. Benchmarks are a package of their own (Benchmarks/Package.swift).
// No unsafe flags: the release CLI's link flags are scripts/lib/fast-start-link-flags.sh's, libFuzzer's are
// scripts/lib/test-build-flags.sh's.

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
            "BiometricsVaultTPM",
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "BiometricsVaultLinuxAuth", condition: linux),
            .target(name: "BiometricsVaultService", condition: linux),
            .target(name: "BiometricsVaultProcess", condition: linux),
            "BiometricsVaultAgent",
            "BiometricsVaultApple",
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strictSettings
    ),
    .target(
        name: "BiometricsVaultTesting",
        dependencies: ["BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),
    // What the test targets share (CLI sandbox, child processes, private buses, daemon needs as traits).
    // Used by test targets only; in no product.
    .target(
        name: "BiometricsVaultTestSupport",
        dependencies: [
            "BiometricsVaultCore",
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
        ],
        path: "Tests/BiometricsVaultTestSupport",
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
        dependencies: ["BiometricsVaultCore", "BiometricsVaultTesting", "BiometricsVaultTestSupport"],
        swiftSettings: strictSettings
    ),
    // Also run under ThreadSanitizer, through the package in Tests/ThreadSanitizer (scripts/extra-tests/10-tsan.sh).
    .testTarget(
        name: "BiometricsVaultConcurrencyTests",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultTesting"],
        path: "Tests/ThreadSanitizer/ConcurrencyTests",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultTestingTests",
        dependencies: ["BiometricsVault", "BiometricsVaultTesting", "BiometricsVaultTestSupport"],
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
        dependencies: ["BiometricsVaultCore", "BiometricsVaultFileStore", "BiometricsVaultTesting", "BiometricsVaultTestSupport"],
        swiftSettings: strictSettings
    ),
    // Spawned by the file store's two-process, kill -9 and file-size-limit tests (found beside the test bundle).
    .executableTarget(
        name: "FileStoreStressHelper",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultFileStore"],
        path: "Tests/FileStoreStressHelper",
        swiftSettings: strictSettings
    ),

    // MARK: Secret Service store, Linux only (owner: secret service)
    // The Secret Service session's key exchange (libgcrypt's modular exponentiation; libsecret uses it too).
    .systemLibrary(
        name: "CGcrypt",
        pkgConfig: "libgcrypt",
        providers: [.apt(["libgcrypt20-dev"])]
    ),
    .target(
        name: "BiometricsVaultSecretService",
        dependencies: [
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultProcess", condition: linux),
            // GLib only for where it looks for the session bus; no D-Bus: that is BiometricsVaultDBus's.
            .target(name: "CGio", condition: linux),
            .target(name: "CGcrypt", condition: linux),
            // HKDF and AES-128-CBC of the session (SessionEncryption.swift).
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultSecretServiceTests",
        dependencies: ["BiometricsVaultSecretService", "BiometricsVaultCore", "BiometricsVaultTesting", "BiometricsVaultTestSupport"],
        swiftSettings: strictSettings
    ),
    // Runs a SecretServiceStore in its own process on a private bus, for the locked / restart / no-daemon tests.
    .executableTarget(
        name: "SecretServiceTestDriver",
        dependencies: [
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultSecretService", condition: linux),
        ],
        path: "Tests/SecretServiceTestDriver",
        swiftSettings: strictSettings
    ),
    // Starts the Secret Service open and fprintd's probe at one instant, in a fresh process each time,
    // for GTypeRaceTests (GLib's type system can deadlock when two threads start GIO together).
    .executableTarget(
        name: "GLibTypeRaceDriver",
        dependencies: [
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "BiometricsVaultLinuxAuth", condition: linux),
        ],
        path: "Tests/GLibTypeRaceDriver",
        swiftSettings: strictSettings
    ),

    // MARK: Linux authentication: fprintd, PAM, polkit (owner: linux auth)
    // gobject-2.0, not gio-2.0: its include paths are all gio/gio.h needs (it lives beside glib.h), and
    // gio-2.0's private requirement gmodule adds `-pthread`, which SwiftPM drops with a warning on every
    // build. module.modulemap links libgio-2.0 itself.
    .systemLibrary(
        name: "CGio",
        pkgConfig: "gobject-2.0",
        providers: [.apt(["libglib2.0-dev"])]
    ),
    // The package's one D-Bus layer (GDBus): connections, calls, signals, deadlines, error mapping, and
    // GIO's type start-up (GTypeStartup.swift). Every D-Bus call of the package goes through it.
    .target(
        name: "BiometricsVaultDBus",
        dependencies: ["BiometricsVaultCore", .target(name: "CGio", condition: linux)],
        swiftSettings: strictSettings
    ),
    .systemLibrary(
        name: "CPAM",
        providers: [.apt(["libpam0g-dev"])]
    ),
    .target(
        name: "BiometricsVaultLinuxAuth",
        dependencies: [
            .target(name: "BiometricsVaultProcess", condition: linux),
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "CPAM", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultLinuxAuthTests",
        dependencies: [
            "BiometricsVaultLinuxAuth", "BiometricsVaultTesting", "BiometricsVaultTestSupport",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultProcess", condition: linux),
            // the whole vault flow runs on the real Secret Service too
            .target(name: "BiometricsVaultSecretService", condition: linux),
        ],
        swiftSettings: strictSettings
    ),

    // MARK: vault service, Linux only (owner: vault service)
    // The client: a store and an authenticator that reach `biometrics-vault service` on the system bus,
    // and the interface both ends share (Docs/VaultService.md).
    .target(
        name: "BiometricsVaultService",
        dependencies: [
            .target(name: "BiometricsVaultProcess", condition: linux),
            "BiometricsVaultCore", "BiometricsVaultSSH", .target(name: "BiometricsVaultDBus", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    // The service itself, run by the CLI's `service` verb under the service's own user. In no product.
    .target(
        name: "BiometricsVaultServiceDaemon",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultFileStore", "BiometricsVaultTPM", "BiometricsVaultJSON", "BiometricsVaultSSH",
            .target(name: "BiometricsVaultService", condition: linux),
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultLinuxAuth", condition: linux),
            .target(name: "BiometricsVaultProcess", condition: linux),
            .target(name: "CProcessControl", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    // The daemon's parts in-process, without a bus.
    .testTarget(
        name: "BiometricsVaultServiceDaemonTests",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultJSON", "BiometricsVaultSSH",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultService", condition: linux),
            .target(name: "BiometricsVaultServiceDaemon", condition: linux),
            .target(name: "BiometricsVaultProcess", condition: linux),
        ],
        swiftSettings: strictSettings
    ),

    // The provider's parts in-process, without a bus.
    .testTarget(
        name: "BiometricsVaultSecretServiceProviderTests",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultTesting",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "BiometricsVaultSecretServiceProvider", condition: linux),
        ],
        swiftSettings: strictSettings
    ),

    // The Secret Service provider (`biometrics-vault secret-service`): the spec's API on the session bus,
    // its items in the vault service. In no product.
    .target(
        name: "BiometricsVaultSecretServiceProvider",
        dependencies: [
            .target(name: "BiometricsVaultProcess", condition: linux),
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "BiometricsVaultService", condition: linux),
            .target(name: "BiometricsVaultLinuxAuth", condition: linux),
            .target(name: "CProcessControl", condition: linux),
        ],
        swiftSettings: strictSettings
    ),

    // What Linux processes of the package share: the reader of /proc/PID/stat, the one parser of that
    // line (Fuzz/FuzzProcessStat), for the agent's scopes, the vault service's callers and polkit's
    // subjects; the one thread helper (DedicatedThread) for blocking work; the Unix-socket calls and the
    // peer's credentials (UnixSocket) of the agent, the vault service's attestation socket and the SSH
    // agent; a peer pinned by a pidfd (PeerProcess) and the terminal session it runs in (PeerScope), the
    // scope of the windows of the agent, the vault service and the Secret Service provider.
    .target(
        name: "BiometricsVaultProcess",
        dependencies: ["BiometricsVaultCore", .target(name: "CProcessControl", condition: linux)],
        swiftSettings: strictSettings),

    // MARK: SSH keys (owner: vault service)
    // The SSH agent protocol (RFC 9987 with OpenSSH's extensions), the SSH wire encoding, and the keys the
    // vault service keeps and signs with (Ed25519, ECDSA P-256/P-384, RSA), on swift-crypto. Platform-free:
    // no sockets, no bus; `biometrics-vault ssh-agent` and the service use it. In no product.
    .target(
        name: "BiometricsVaultSSH",
        dependencies: [
            "BiometricsVaultCore",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultSSHTests",
        dependencies: ["BiometricsVaultSSH", "BiometricsVaultCore", "BiometricsVaultTestSupport"],
        swiftSettings: strictSettings
    ),

    // MARK: unlock-window agent (owner: agent)
    // `biometrics-vault agent`'s server, its client, and the authenticator wrapper that asks it first: those
    // three are Linux only (`+Linux` files); the messages, the settings, the window state and the store-key
    // keeper compile everywhere.
    .target(
        name: "BiometricsVaultAgent",
        // CProcessControl: prctl(PR_SET_DUMPABLE) for the agent, which holds store keys.
        dependencies: [
            "BiometricsVaultCore", .target(name: "CProcessControl", condition: linux),
            .target(name: "BiometricsVaultProcess", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultAgentTests",
        dependencies: ["BiometricsVaultAgent", "BiometricsVaultCore", .target(name: "BiometricsVaultProcess", condition: linux)],
        swiftSettings: strictSettings
    ),

    // MARK: TPM 2.0 sealing of the file store's key, Linux only (owner: tpm)
    // Elsewhere BiometricsVaultTPM compiles to a backend that reports "Linux only".
    // No pkgConfig: its libs would link tpm2-tss at start-up; shim.h opens it with dlopen on first use.
    .systemLibrary(
        name: "CTSS2",
        providers: [.apt(["libtss2-dev"])]
    ),
    .target(
        name: "BiometricsVaultTPM",
        dependencies: [
            "BiometricsVaultCore",
            "BiometricsVaultFileStore",
            .target(name: "BiometricsVaultProcess", condition: linux),
            .target(name: "CTSS2", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultTPMTests",
        dependencies: ["BiometricsVaultTPM", "BiometricsVaultFileStore", "BiometricsVaultCore", "BiometricsVaultTestSupport", "biometrics-vault"],
        swiftSettings: strictSettings
    ),

    // MARK: Apple Keychain + LocalAuthentication (owner: apple)
    .target(
        name: "BiometricsVaultApple",
        dependencies: ["BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),

    // MARK: exact JSON credentials (owner: cli)
    // The JSON value kept byte for byte that the CLI stores and prints (and every command reads). In no
    // product: an app stores its own Codable type.
    .target(
        name: "BiometricsVaultJSON",
        dependencies: ["BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultJSONTests",
        dependencies: ["BiometricsVaultJSON", "BiometricsVaultCore"],
        swiftSettings: strictSettings
    ),

    // MARK: credential helpers (owner: cli)
    // git's (gitcredentials(7)) and docker's (docker-credential-helpers) credential-helper protocols over
    // the vault: request parsing, vault keys, the operations. In no product: only the CLI speaks them (an
    // app that wanted to answer git or docker itself would need it in one).
    .target(
        name: "BiometricsVaultCredentialHelpers",
        dependencies: [
            "BiometricsVaultCore",
            "BiometricsVaultJSON",
            // SHA-256 for the digest form of credential-helper keys (already linked through the file store).
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultCredentialHelpersTests",
        dependencies: ["BiometricsVaultCredentialHelpers", "BiometricsVaultCore", "BiometricsVaultJSON"],
        swiftSettings: strictSettings
    ),

    // MARK: CLI (owner: cli)
    // prctl(PR_SET_DUMPABLE) for the CLI (prctl is variadic, which Swift cannot call), and glibc's
    // per-process malloc and thread-stack defaults (CProcessControl.h).
    .target(name: "CProcessControl"),
    .executableTarget(
        name: "biometrics-vault",
        dependencies: [
            "BiometricsVault",
            "BiometricsVaultAgent",
            "BiometricsVaultTPM",
            "BiometricsVaultJSON",
            "BiometricsVaultCredentialHelpers",
            "BiometricsVaultSSH",
            "CProcessControl",
            .target(name: "BiometricsVaultProcess", condition: linux),
            .target(name: "BiometricsVaultServiceDaemon", condition: linux),
            .target(name: "BiometricsVaultSecretServiceProvider", condition: linux),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strictSettings
    ),
    // Golden end-to-end tests of the built binary; depending on the executable makes `swift test` build
    // it into the products directory next to the test bundle, where the tests find it.
    .testTarget(
        name: "BiometricsVaultCLITests",
        // BiometricsVaultFileStore: to write a protected item the CLI then reads (no password typed).
        // ArgumentParser: to list the CLI's commands from their definitions.
        // Logging: a recording handler hears the platform default's fallback notice.
        // BiometricsVaultProcess: the reader of /proc/PID/stat, tested on its own (ProcessStatTests).
        dependencies: [
            "BiometricsVaultCore", "BiometricsVault", "BiometricsVaultTesting", "BiometricsVaultTestSupport", "BiometricsVaultFileStore",
            "BiometricsVaultCredentialHelpers", "BiometricsVaultAgent", "biometrics-vault",
            .target(name: "BiometricsVaultProcess", condition: linux),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        exclude: ["Golden"],  // expected --help texts, read from the source tree by the tests
        swiftSettings: strictSettings
    ),

    // MARK: fuzzing and stress (owner: hardening)
    // They stay in this package, though in no product, because CI runs them from the one AddressSanitizer
    // build of the tests (scripts/test.sh): a package of their own would compile the library and
    // swift-crypto a second time (SwiftPM shares no build folder between packages), and several of them
    // reach code no product exports (the CLI's JSON and credential-helper targets) or `package` API.
    //
    // libFuzzer targets over the decoders of untrusted bytes (Fuzz/README.md). scripts/fuzz.sh runs them;
    // libFuzzer is linked by the fuzz build's flags (scripts/lib/test-build-flags.sh), and any other build
    // makes each target a program that says so.
    .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strictSettings),
    fuzzTarget("FuzzEnvelope", ["BiometricsVaultCore"]),
    fuzzTarget("FuzzItemHeader", ["BiometricsVaultCore"]),
    fuzzTarget(
        "FuzzFileStoreFormat",
        ["BiometricsVaultCore", "BiometricsVaultFileStore", .product(name: "Crypto", package: "swift-crypto")]),
    fuzzTarget("FuzzJSONValue", ["BiometricsVaultJSON"]),
    fuzzTarget("FuzzGitCredentialRequest", ["BiometricsVaultCore", "BiometricsVaultCredentialHelpers", "BiometricsVaultJSON"]),
    fuzzTarget("FuzzDockerCredentialRequest", ["BiometricsVaultCore", "BiometricsVaultCredentialHelpers", "BiometricsVaultJSON"]),
    fuzzTarget("FuzzAgentFrame", ["BiometricsVaultAgent", "BiometricsVaultCore"]),
    fuzzTarget("FuzzSSHAgentMessage", ["BiometricsVaultSSH", "BiometricsVaultCore"]),
    fuzzTarget("FuzzProcessStat", [.target(name: "BiometricsVaultProcess", condition: linux)]),
    fuzzTarget("FuzzConfigFile", ["BiometricsVaultAgent"]),
    fuzzTarget(
        "FuzzSecretServiceReply",
        [
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "CGio", condition: linux),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
    fuzzTarget(
        "FuzzProviderRecord",
        [
            "BiometricsVaultCore", "BiometricsVaultTesting",
            .target(name: "BiometricsVaultSecretServiceProvider", condition: linux),
        ]),
    fuzzTarget(
        "FuzzVaultServiceRequest",
        [
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultService", condition: linux),
        ]),
    // The workers of scripts/stress.sh (CI: scripts/extra-tests/60-stress.sh).
    .executableTarget(
        name: "VaultStress",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultFileStore", "BiometricsVaultTesting",
            .target(name: "BiometricsVaultSecretService", condition: linux),
        ],
        path: "Stress/VaultStress",
        swiftSettings: strictSettings
    ),
    // One cold `retrieveVault` per process: the many cold starts of scripts/stress-cold-start.sh (CI, from the
    // AddressSanitizer build), and the cold-start rows of Benchmarks/run-all.sh (a release build linked as the
    // CLI is, scripts/lib/fast-start-link-flags.sh).
    .executableTarget(
        name: "ColdStartBenchmark",
        dependencies: ["BiometricsVault"],
        path: "Stress/ColdStartBenchmark",
        swiftSettings: strictSettings
    ),
]

/// A libFuzzer target: `Fuzz/<name>/main.swift` with FuzzSupport's driver.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies + ["FuzzSupport"],
        path: "Fuzz/\(name)",
        swiftSettings: strictSettings
    )
}

// MARK: Apple Keychain + LocalAuthentication: tests and Linux-only check targets (owner: apple)
// `#if` because SwiftPM conditions a target's dependencies and settings by platform, never the target itself.
#if os(Linux)
// Check-only targets, declared only when the manifest is evaluated on Linux and listed in no product:
// API-shape stubs of the Apple SDK (project-prefixed module names, never `Security`), and a target that
// compiles the Apple backend's sources (`Stubs/BiometricsVaultAppleCheck` is a symlink to them) against
// the stubs. The define, not `canImport(<stub>)`, switches the code on. On Linux the Apple tests run the
// backend's logic through this target with fakes behind its SecItem / LAContext seams.
targets += [
    .target(name: "BiometricsVaultCoreFoundationStubs", path: "Stubs/CoreFoundationStubs", swiftSettings: strictSettings),
    .target(
        name: "BiometricsVaultSecurityStubs",
        dependencies: ["BiometricsVaultCoreFoundationStubs"],
        path: "Stubs/SecurityStubs",
        swiftSettings: strictSettings
    ),
    .target(
        name: "BiometricsVaultLocalAuthenticationStubs",
        dependencies: ["BiometricsVaultCoreFoundationStubs", "BiometricsVaultSecurityStubs"],
        path: "Stubs/LocalAuthenticationStubs",
        swiftSettings: strictSettings
    ),
    .target(
        name: "BiometricsVaultAppleCheck",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultSecurityStubs", "BiometricsVaultLocalAuthenticationStubs"],
        path: "Stubs/BiometricsVaultAppleCheck",
        swiftSettings: strictSettings + [.define("APPLE_SDK_STUBS")]
    ),
    .testTarget(
        name: "BiometricsVaultAppleTests",
        dependencies: ["BiometricsVaultAppleCheck", "BiometricsVaultTesting"],
        swiftSettings: strictSettings + [.define("APPLE_SDK_STUBS")]
    ),
]
#else
targets += [
    .testTarget(
        name: "BiometricsVaultAppleTests",
        dependencies: ["BiometricsVaultApple", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),
]
#endif

let products: [Product] = [
    .library(name: "BiometricsVault", targets: ["BiometricsVault"]),
    .library(name: "BiometricsVaultTesting", targets: ["BiometricsVaultTesting"]),
    .executable(name: "biometrics-vault", targets: ["biometrics-vault"]),
]

let package = Package(
    name: "BiometricsVault",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: products,
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: targets
)
