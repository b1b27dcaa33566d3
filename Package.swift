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

/// How release executables that start often (the CLI, the cold-start benchmark) are linked on Linux.
/// Debug and sanitizer builds link as usual. Each flag's figure is in Docs/Benchmarks.md.
/// - the C++ runtime and the unwinder the static Swift runtime needs go into the executable instead of
///   loading libstdc++.so.6 and libgcc_s.so.1 at every start (Linker/static-libstdc++; about 0.4 ms);
/// - lld packs the ~51,000 relative relocations into a 10 KB DT_RELR table instead of 1.2 MB of RELA
///   entries (36 fewer page faults, about 0.1 ms; needs glibc 2.36 or later, which the binary names in a
///   GLIBC_ABI_DT_RELR version reference, so an older loader refuses it by name);
/// - the executable exports 3 symbols instead of the driver's `-export-dynamic` 9,183 (a 16 KB dynamic
///   symbol table instead of 720 KB; about 0.1 ms): exports serve in-process symbol lookups (`dlsym`,
///   `dladdr`) these executables never make.
let fastStartLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-L\(Context.packageDirectory)/Linker/static-libstdc++", "-Xclang-linker", "-static-libgcc",
            "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
        ],
        .when(platforms: [.linux], configuration: .release))
]

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
        dependencies: ["BiometricsVaultCore"],
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
        dependencies: ["BiometricsVaultCore", "BiometricsVaultFileStore", "BiometricsVaultTesting"],
        swiftSettings: strictSettings
    ),
    // Spawned by the file store's two-process, kill -9 and file-size-limit tests (found beside the test bundle).
    .executableTarget(
        name: "FileStoreStressHelper",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultFileStore"],
        path: "Tests/FileStoreStressHelper",
        swiftSettings: strictSettings
    ),
    // Durable write and read latency against bare POSIX baselines: Benchmarks/run-file-store.sh.
    .executableTarget(
        name: "FileStoreBenchmark",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultFileStore"],
        path: "Benchmarks/FileStoreBenchmark",
        swiftSettings: strictSettings
    ),

    // MARK: Secret Service store, Linux only (owner: secret service)
    // libsecret itself: only for SecretServiceBenchmark, which compares the store with a raw libsecret lookup.
    // Its flags come from the package's own libsecret-headers.pc (a .pc path SwiftPM reads as is), not from
    // libsecret-1.pc: that one requires gio-2.0, whose private requirement gmodule adds `-pthread`, a flag
    // SwiftPM drops with a warning on every build. The headers need libsecret's directory and GObject's.
    .systemLibrary(
        name: "CLibSecret",
        pkgConfig: "\(Context.packageDirectory)/Sources/CLibSecret/libsecret-headers.pc",
        providers: [.apt(["libsecret-1-dev"])]
    ),
    // The Secret Service session's crypto (libgcrypt, which GnuPG and libsecret use too: on every desktop).
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
            // GLib threads only (prepareConnection); no D-Bus: that is BiometricsVaultDBus's.
            .target(name: "CGio", condition: linux),
            .target(name: "CGcrypt", condition: linux),
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
    // Not a test: vault read vs raw secret_password_lookupv_sync (Benchmarks/run-secret-service.sh).
    .executableTarget(
        name: "SecretServiceBenchmark",
        dependencies: [
            "BiometricsVaultCore",
            "BiometricsVaultTesting",
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "CLibSecret", condition: linux),
        ],
        path: "Benchmarks/SecretServiceBenchmark",
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
            "BiometricsVaultCore",
            .target(name: "BiometricsVaultDBus", condition: linux),
            // GLib threads (DedicatedThread.swift); no D-Bus: that is BiometricsVaultDBus's.
            .target(name: "CGio", condition: linux),
            .target(name: "CPAM", condition: linux),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultLinuxAuthTests",
        dependencies: [
            "BiometricsVaultLinuxAuth", "BiometricsVaultTesting", "BiometricsVaultTestSupport",
            .target(name: "BiometricsVaultDBus", condition: linux),
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
        dependencies: ["BiometricsVaultCore", .target(name: "BiometricsVaultDBus", condition: linux)],
        swiftSettings: strictSettings
    ),
    // The service itself, run by the CLI's `service` verb under the service's own user. In no product.
    .target(
        name: "BiometricsVaultServiceDaemon",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultFileStore", "BiometricsVaultTPM", "BiometricsVaultJSON",
            .target(name: "BiometricsVaultService", condition: linux),
            .target(name: "BiometricsVaultAgent", condition: linux),
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultLinuxAuth", condition: linux),
            .target(name: "CProcessControl", condition: linux),
        ],
        swiftSettings: strictSettings
    ),

    // MARK: unlock-window agent (owner: agent)
    // `biometrics-vault agent`'s server, its client, and the authenticator wrapper that asks it first:
    // Linux only; elsewhere only the message types and the duration parser compile.
    .target(
        name: "BiometricsVaultAgent",
        // CProcessControl: prctl(PR_SET_DUMPABLE) for the agent, which holds store keys.
        dependencies: ["BiometricsVaultCore", .target(name: "CProcessControl", condition: linux)],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "BiometricsVaultAgentTests",
        dependencies: ["BiometricsVaultAgent", "BiometricsVaultCore"],
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
            "CProcessControl",
            .target(name: "BiometricsVaultServiceDaemon", condition: linux),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strictSettings,
        linkerSettings: fastStartLinkerSettings
    ),
    // Golden end-to-end tests of the built binary; depending on the executable makes `swift test` build
    // it into the products directory next to the test bundle, where the tests find it.
    .testTarget(
        name: "BiometricsVaultCLITests",
        // BiometricsVaultFileStore: to write a protected item the CLI then reads (no password typed).
        // ArgumentParser: to list the CLI's commands from their definitions.
        // Logging: a recording handler hears the platform default's fallback notice.
        // BiometricsVaultAgent: its reader of /proc/PID/stat, tested on its own (ProcessStatTests).
        dependencies: [
            "BiometricsVaultCore", "BiometricsVault", "BiometricsVaultTesting", "BiometricsVaultTestSupport", "BiometricsVaultFileStore",
            "BiometricsVaultCredentialHelpers", "BiometricsVaultAgent", "biometrics-vault",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        exclude: ["Golden"],  // expected --help texts, read from the source tree by the tests
        swiftSettings: strictSettings
    ),

    // MARK: fuzzing (owner: hardening)
    // libFuzzer targets over the decoders of untrusted bytes (Fuzz/README.md). scripts/fuzz.sh builds them
    // with AddressSanitizer and coverage; an ordinary build links libFuzzer into them but never runs them.
    // VaultStress: one worker of scripts/stress.sh; ColdStartBenchmark: retrieveVault cold start for
    // Benchmarks/run-all.sh. None of these is in a product.
    .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strictSettings),
    .executableTarget(
        name: "FuzzEnvelope",
        dependencies: ["BiometricsVaultCore", "FuzzSupport"],
        path: "Fuzz/FuzzEnvelope",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzItemHeader",
        dependencies: ["BiometricsVaultCore", "FuzzSupport"],
        path: "Fuzz/FuzzItemHeader",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzFileStoreFormat",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultFileStore", "FuzzSupport",
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        path: "Fuzz/FuzzFileStoreFormat",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzJSONValue",
        dependencies: ["BiometricsVaultJSON", "FuzzSupport"],
        path: "Fuzz/FuzzJSONValue",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzGitCredentialRequest",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultCredentialHelpers", "BiometricsVaultJSON", "FuzzSupport"],
        path: "Fuzz/FuzzGitCredentialRequest",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzDockerCredentialRequest",
        dependencies: ["BiometricsVaultCore", "BiometricsVaultCredentialHelpers", "BiometricsVaultJSON", "FuzzSupport"],
        path: "Fuzz/FuzzDockerCredentialRequest",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzAgentFrame",
        dependencies: ["BiometricsVaultAgent", "BiometricsVaultCore", "FuzzSupport"],
        path: "Fuzz/FuzzAgentFrame",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzProcessStat",
        dependencies: ["BiometricsVaultAgent", "FuzzSupport"],
        path: "Fuzz/FuzzProcessStat",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzConfigFile",
        dependencies: ["BiometricsVaultAgent", "FuzzSupport"],
        path: "Fuzz/FuzzConfigFile",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "FuzzSecretServiceReply",
        dependencies: [
            "BiometricsVaultCore", "FuzzSupport",
            .target(name: "BiometricsVaultDBus", condition: linux),
            .target(name: "BiometricsVaultSecretService", condition: linux),
            .target(name: "CGio", condition: linux),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ],
        path: "Fuzz/FuzzSecretServiceReply",
        swiftSettings: strictSettings,
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer"], .when(platforms: [.linux]))]
    ),
    .executableTarget(
        name: "VaultStress",
        dependencies: [
            "BiometricsVaultCore", "BiometricsVaultFileStore", "BiometricsVaultTesting",
            .target(name: "BiometricsVaultSecretService", condition: linux),
        ],
        path: "Stress/VaultStress",
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "ColdStartBenchmark",
        dependencies: ["BiometricsVault"],
        path: "Benchmarks/ColdStartBenchmark",
        swiftSettings: strictSettings,
        // Linked as the CLI is: the figure is the library's start. An app linked with SwiftPM's defaults
        // also pays the default link's start (Docs/Benchmarks.md has both).
        linkerSettings: fastStartLinkerSettings
    ),
]

// MARK: Apple Keychain + LocalAuthentication: tests and Linux-only check targets (owner: apple)
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

var products: [Product] = [
    .library(name: "BiometricsVault", targets: ["BiometricsVault"]),
    .library(name: "BiometricsVaultTesting", targets: ["BiometricsVaultTesting"]),
    .executable(name: "biometrics-vault", targets: ["biometrics-vault"]),
]

// CI's ThreadSanitizer step (scripts/extra-tests/10-tsan.sh) runs the core's concurrency tests only. With
// BV_PACKAGE_SUBSET=core the manifest declares just the core, the testing product, the test support and the core's tests,
// so that sanitized build compiles four small modules instead of the whole package with swift-crypto.
if Context.environment["BV_PACKAGE_SUBSET"] == "core" {
    let core: Set<String> = ["BiometricsVaultCore", "BiometricsVaultTesting", "BiometricsVaultTestSupport", "BiometricsVaultCoreTests"]
    targets = targets.filter { core.contains($0.name) }
    products = products.filter { $0.name == "BiometricsVaultTesting" }
}

let package = Package(
    name: "BiometricsVault",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: products,
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: targets
)
