// retrieveVault cold start (not a test): what an app pays for its FIRST `VaultFactory.retrieveVault(key:)`
// in a fresh process (probing the platform: session bus, Secret Service, fprintd; opening the store), next
// to what every later call costs. Benchmarks/run-all.sh also times this whole process against
// `secret-tool lookup` of the same item, and scripts/stress-cold-start.sh runs many at once.
//
//   ColdStartBenchmark store <key>      stores a plain item under the default service (setup)
//   ColdStartBenchmark retrieve <key>   one cold retrieveVault; exits 0 if it found the stored item
//   ColdStartBenchmark retrieve-or-throw <key>  one cold retrieveVaultOrThrow, as an app reads: prints
//                                       the state, or fails with the error (code and cause)
//   ColdStartBenchmark measure <key> N  cold call, then N warm calls: prints both and their ratio
//   ColdStartBenchmark reset <key>      deletes the item
// FoundationEssentials, not Foundation: the measurement is the library's start, not full Foundation's
// (the library itself links only FoundationEssentials on Linux; an app importing Foundation pays that too).
import BiometricsVault
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

struct BenchCredentials: Codable, Sendable {
    var user: String
    var token: String
}

/// Ends the process with status 2 and a message on stderr (a top-level `throw` would trap instead).
func fail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

/// One `retrieveVault(key:)`; true when it found the plain item `store` wrote.
func retrieve(_ key: String) -> Bool {
    switch VaultFactory<BenchCredentials>.retrieveVault(key: key) {
    case .keychain, .keychainUpgradable: true
    default: false
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail("usage: ColdStartBenchmark store|retrieve|measure|reset <key> [N]")
}
let key = arguments[2]
switch arguments[1] {
case "store":
    do {
        let vault = try VaultFactory<BenchCredentials>.retrieveVaultOrThrow(key: key)
        let credentials = BenchCredentials(user: "bench", token: String(repeating: "0123456789abcdef", count: 4))
        switch vault {
        case .empty(let empty), .emptyWithBiometrics(let empty): _ = try empty.storeToKeychain(credentials: credentials)
        case .keychain(let stored), .keychainUpgradable(let stored): _ = try stored.update(credentials: credentials)
        default: _ = try vault.reset()
        }
    } catch {
        fail("store \(key) failed: \(error)")
    }
    print("stored \(key) in the \(VaultConfiguration.platformDefault.store.name) store, service \(VaultConfiguration.defaultService)")
case "retrieve":
    exit(retrieve(key) ? 0 : 1)
case "retrieve-or-throw":
    do {
        print(try VaultFactory<BenchCredentials>.retrieveVaultOrThrow(key: key).kind)
    } catch let error as VaultError {
        fail("\(error.code): \(error.underlying?.description ?? "")")
    } catch {
        fail("\(type(of: error))")
    }
case "measure":
    let warmCount = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
    let clock = ContinuousClock()
    var found = false
    let cold = clock.measure { found = retrieve(key) }
    guard found else { fail("no plain item \(key)") }
    var warm: [Duration] = []
    for _ in 0..<warmCount { warm.append(clock.measure { _ = retrieve(key) }) }
    warm.sort()
    let median = warm[warm.count / 2]
    func micros(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
    let hundredths = micros(cold) * 100 / max(1, micros(median))
    print("cold retrieveVault (first call in process): \(micros(cold)) us")
    print("warm retrieveVault (median of \(warmCount)): \(micros(median)) us")
    print("ratio cold/warm: \(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)x")
case "reset":
    do {
        _ = try VaultFactory<BenchCredentials>.retrieveVaultOrThrow(key: key).reset()
    } catch {
        fail("reset \(key) failed: \(error)")
    }
default:
    exit(2)
}
