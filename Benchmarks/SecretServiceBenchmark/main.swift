// Vault read through the Secret Service store vs a raw libsecret lookup of the same item, in-process,
// interleaved in one run (absolute numbers drift ±8 % between runs; the ratio is the figure to watch).
// Goal (Docs/Benchmarks.md): vault read <= 1.10x raw `secret_password_lookupv_sync`.
// Run: bash Benchmarks/run-secret-service.sh   (needs a session bus with an unlocked gnome-keyring)
#if os(Linux)
import BiometricsVaultCore
import Foundation
import BiometricsVaultSecretService
import BiometricsVaultTesting
import CLibSecret
import Glibc

struct Credentials: Codable, Sendable {
    var username: String
    var token: String
    var scopes: [String]
}

func microseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func fail(_ message: String) -> Never {
    print("benchmark failed: \(message)")
    exit(1)
}

/// The raw libsecret lookup a C program would do: keyring-compatible schema, no `xdg:schema` match.
final class RawLookup {
    let schema: UnsafeMutablePointer<SecretSchema>
    let attributes: OpaquePointer

    init(service: String, username: String) {
        let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)!
        for name in ["service", "username"] {
            g_hash_table_insert(types, UnsafeMutableRawPointer(g_strdup(name)), nil)  // SECRET_SCHEMA_ATTRIBUTE_STRING
        }
        schema = secret_schema_newv("org.freedesktop.Secret.Generic", SECRET_SCHEMA_DONT_MATCH_NAME, types)
        g_hash_table_unref(types)
        attributes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        g_hash_table_insert(attributes, UnsafeMutableRawPointer(g_strdup("service")), UnsafeMutableRawPointer(g_strdup(service)))
        g_hash_table_insert(attributes, UnsafeMutableRawPointer(g_strdup("username")), UnsafeMutableRawPointer(g_strdup(username)))
    }

    /// One lookup; returns the length of the secret (the secret itself is wiped and freed at once).
    func lookup() -> Int {
        var error: UnsafeMutablePointer<GError>?
        guard let password = secret_password_lookupv_sync(schema, attributes, nil, &error) else {
            if let error { g_error_free(error) }
            fail("raw lookup found nothing")
        }
        defer { secret_password_free(password) }
        return strlen(password)
    }
}

let service = "bv-benchmark.secret-service"
let key = "item"
let store: SecretServiceStore
do { store = try SecretServiceStore() } catch { fail("no Secret Service: \(error)") }
let configuration = VaultConfiguration(store: store, authenticator: SimulatedDevice().authenticator, service: service)
let credentials = Credentials(
    username: "alice@example.com", token: String(repeating: "t", count: 120), scopes: ["read", "write", "admin"])

// A ~200-byte plain item, written through the vault (as an app would).
do {
    let vault = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
    _ = try vault.reset()
    _ = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
        .storeToKeychain(credentials: credentials)
} catch { fail("could not store the item: \(error)") }

let raw = RawLookup(service: service, username: key)
let id = try! SecretItemID(service: service, key: key)
let clock = ContinuousClock()

func vaultRead() {
    guard case .keychainUpgradable(let vault) = try! VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration),
        vault.credentials.username == credentials.username
    else { fail("vault read did not return the item") }
}

func storeRead() {
    guard try! store.read(id, authorization: nil)?.payload != nil else { fail("store read found nothing") }
}

// Warm up: connection, session (DH), caches.
for _ in 0..<50 { vaultRead(); storeRead(); _ = raw.lookup() }

// Interleaved rounds: each round times a batch of each kind, so drift hits all kinds alike, and the
// kind that goes first rotates from round to round: the batch right after the libsecret batch was
// measured slower than the same batch later in the round (by up to ~60 µs a read).
let rounds = 21, batch = 50
var times: [[Double]] = [[], [], []]  // raw, vault, store
let kinds: [() -> Void] = [{ _ = raw.lookup() }, vaultRead, storeRead]
for round in 0..<rounds {
    for position in 0..<kinds.count {
        let kind = (round + position) % kinds.count
        let start = clock.now
        for _ in 0..<batch { kinds[kind]() }
        times[kind].append(microseconds(clock.now - start) / Double(batch))
    }
}
let rawTimes = times[0], vaultTimes = times[1], storeTimes = times[2]

// 1,000 sequential reads through the vault, and raw, back to back.
var start = clock.now
for _ in 0..<1000 { vaultRead() }
let vaultThousand = clock.now - start
start = clock.now
for _ in 0..<1000 { _ = raw.lookup() }
let rawThousand = clock.now - start

// The vault layer alone: the same vault read with the same item on the simulated device's in-memory
// store (no D-Bus), and the JSON decoding it includes. What a read through the Secret Service adds to
// this is the store's D-Bus round trips, whose time varies from batch to batch far more than this.
let memory = SimulatedDevice()
let memoryConfiguration = VaultConfiguration(store: memory.store, authenticator: memory.authenticator, service: service)
do {
    _ = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: memoryConfiguration)
        .storeToKeychain(credentials: credentials)
} catch { fail("could not store the item in memory: \(error)") }
let memoryPayload = try! memory.store.read(id, authorization: nil)!.payload!

func memoryVaultRead() {
    guard case .keychainUpgradable(let vault) = try! VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: memoryConfiguration),
        vault.credentials.username == credentials.username
    else { fail("in-memory vault read did not return the item") }
}

func decodeOnly() {
    let decoded = try! memoryPayload.withUnsafeBytes { try JSONDecoder().decode(Credentials.self, from: Data($0)) }
    guard decoded.username == credentials.username else { fail("decoding changed the item") }
}

for _ in 0..<1000 { memoryVaultRead(); decodeOnly() }
var memoryTimes: [Double] = [], decodeTimes: [Double] = []
for _ in 0..<rounds {
    var begin = clock.now
    for _ in 0..<500 { memoryVaultRead() }
    memoryTimes.append(microseconds(clock.now - begin) / 500)
    begin = clock.now
    for _ in 0..<500 { decodeOnly() }
    decodeTimes.append(microseconds(clock.now - begin) / 500)
}

func fixed(_ value: Double, _ digits: Int = 2) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale), fraction = String(abs(scaled % Int(scale)))
    return digits == 0 ? String(whole) : "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}

let rawMedian = median(rawTimes), storeMedian = median(storeTimes), vaultMedian = median(vaultTimes)
print("Secret Service read, in-process, warm connection, ~200-byte item; \(rounds) interleaved rounds x \(batch) reads (median of round means):")
print("  raw secret_password_lookupv_sync  : \(fixed(rawMedian, 0)) µs/op")
print("  SecretServiceStore.read           : \(fixed(storeMedian, 0)) µs/op  (\(fixed(storeMedian / rawMedian))x raw)")
print("  vault read (retrieveVaultOrThrow) : \(fixed(vaultMedian, 0)) µs/op  (\(fixed(vaultMedian / rawMedian))x raw; goal <= 1.10x)")
print("  vault read, in-memory store      : \(fixed(median(memoryTimes), 1)) µs/op  (the vault layer alone, no D-Bus; JSONDecoder alone: \(fixed(median(decodeTimes), 1)) µs)")
print("1,000 sequential reads: vault \(fixed(microseconds(vaultThousand) / 1000, 1)) ms (\(fixed(microseconds(vaultThousand) / 1000, 0)) µs/op), raw \(fixed(microseconds(rawThousand) / 1000, 1)) ms (\(fixed(microseconds(rawThousand) / 1000, 0)) µs/op), ratio \(fixed(microseconds(vaultThousand) / microseconds(rawThousand)))x")

_ = try? VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration).reset()
#else
print("The Secret Service benchmark runs on Linux only.")
#endif
