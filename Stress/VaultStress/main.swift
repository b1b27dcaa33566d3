// One worker process of scripts/stress.sh (not a product, not a test target). Many of these run at once
// against ONE store, each doing a number of operations, then a last call checks the end state.
//
//   VaultStress <file|secret-service> work   <mode> <file-store-dir|-> <service> <worker> <operations>
//   VaultStress <file|secret-service> verify <mode> <file-store-dir|-> <service> <workers> <operations>
//
// Modes:
//   same-key  every worker writes the one key "shared" and reads it back after each write: every read
//             must find an item (never nothing once written, store requirement 2) that decodes and is
//             self-consistent (some worker's complete write). At the end the item must be the LAST write
//             of some worker (last writer wins: no worker's final write may be replaced by an earlier one).
//   own-key   each worker writes its own key "worker-<n>" and must read back exactly what it wrote (no
//             interference between keys); every 10th operation also reads another worker's key, which must
//             be absent or decode. At the end every worker's key holds its last write.
//   transitions  vault operations on the one key "vault", in rounds that all workers start together
//             (file barriers in $BV_STRESS_SYNC). Each round: (1) every worker tries `store` into the empty
//             key: exactly one may win; (2) every worker makes random update / upgrade / downgrade / unlock
//             calls through handles that go stale as the others write: the item never vanishes, every read
//             decodes, and the final protection equals the start's plus the successful upgrades minus
//             downgrades (a stale plain update that silently stripped protection, or two upgrades from one
//             plain item, breaks that count); (3) half the workers reset while the others update: the key
//             ends empty (no deleted item comes back). <operations> is the number of rounds.
//   counter   file store only (EncryptedFileStore.update is its read-modify-write under the store lock):
//             each operation increments a shared counter; at the end it equals workers x operations, so no
//             update was lost.
//
// A payload is "<worker>:<sequence>:<counter>:<padding>:<crc32>" with a padding length that varies, so a
// torn or mixed write cannot pass. Payloads are test data, not secrets. Exit status 0: all checks held.
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultSecretService
import BiometricsVaultTesting
import Foundation
import Glibc

struct Payload: Equatable {
    var worker: Int
    var sequence: Int
    var counter: Int

    var bytes: SecretBytes {
        let padding = String(repeating: "x", count: 16 + (sequence * 37 + worker * 11) % 400)
        let body = "\(worker):\(sequence):\(counter):\(padding)"
        return SecretBytes(utf8: body + ":\(CRC32.checksum(Array(body.utf8)))")
    }

    init(worker: Int, sequence: Int, counter: Int = 0) {
        self.worker = worker
        self.sequence = sequence
        self.counter = counter
    }

    /// Decodes and validates a stored payload; `nil` when it is not one complete payload.
    init?(_ item: StoredItem?) {
        guard let bytes = item?.payload?.copyBytes(), item?.header.protection == ItemProtection.none else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let separator = text.lastIndex(of: ":"), let crc = UInt32(text[text.index(after: separator)...]) else { return nil }
        let body = String(text[..<separator])
        let fields = body.split(separator: ":", omittingEmptySubsequences: false)
        guard CRC32.checksum(Array(body.utf8)) == crc, fields.count == 4,
            let worker = Int(fields[0]), let sequence = Int(fields[1]), let counter = Int(fields[2])
        else { return nil }
        self.init(worker: worker, sequence: sequence, counter: counter)
        guard self.bytes.copyBytes() == bytes else { return nil }
    }

    var item: StoredItem { StoredItem(header: ItemHeader(protection: .none), payload: bytes) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("VaultStress: \(message)\n".utf8))
    exit(1)
}

func makeStore(_ kind: String, directory: String) -> any SecretStore {
    do {
        switch kind {
        case "file": return try EncryptedFileStore(directory: URL(fileURLWithPath: directory))
        case "secret-service": return try SecretServiceStore()
        default: fail("unknown store \(kind)")
        }
    } catch {
        fail("cannot open the \(kind) store: \(error)")
    }
}

func id(_ service: String, _ key: String) -> SecretItemID {
    do { return try SecretItemID(service: service, key: key) } catch { fail("bad id: \(error)") }
}

func work(store: any SecretStore, mode: String, service: String, worker: Int, operations: Int) async throws {
    var reads = 0
    switch mode {
    case "same-key":
        let shared = id(service, "shared")
        for sequence in 0..<operations {
            try store.write(Payload(worker: worker, sequence: sequence).item, for: shared, authorization: nil)
            let item = try store.read(shared, authorization: nil)
            reads += 1
            guard item != nil else { fail("worker \(worker): shared item missing after a write (op \(sequence))") }
            guard Payload(item) != nil else { fail("worker \(worker): shared item does not decode (op \(sequence))") }
        }
    case "own-key":
        let own = id(service, "worker-\(worker)")
        for sequence in 0..<operations {
            let written = Payload(worker: worker, sequence: sequence)
            try store.write(written.item, for: own, authorization: nil)
            let readBack = Payload(try store.read(own, authorization: nil))
            reads += 1
            guard readBack == written else { fail("worker \(worker): read \(String(describing: readBack)) after writing \(written)") }
            if sequence % 10 == 9 {
                let other = id(service, "worker-\((worker + 1 + sequence) % 1000)")
                if let item = try store.read(other, authorization: nil), Payload(item) == nil {
                    fail("worker \(worker): \(other.key) does not decode")
                }
                reads += 1
            }
        }
    case "transitions":
        var transitions = Transitions(store: store, service: service, worker: worker)
        try await transitions.run(rounds: operations)
        return
    case "counter":
        guard let fileStore = store as? EncryptedFileStore else { fail("counter mode needs the file store") }
        let counter = id(service, "counter")
        for sequence in 0..<operations {
            try fileStore.update(counter, authorization: nil) { old in
                let current = old.flatMap { Payload($0) }
                if old != nil, current == nil { fail("worker \(worker): counter does not decode (op \(sequence))") }
                return Payload(worker: worker, sequence: sequence, counter: (current?.counter ?? 0) + 1).item
            }
            guard Payload(try store.read(counter, authorization: nil)) != nil else {
                fail("worker \(worker): counter does not decode after an update (op \(sequence))")
            }
            reads += 1
        }
    default:
        fail("unknown mode \(mode)")
    }
    print("worker \(worker): \(operations) writes, \(reads) reads, all decoded")
}

func verify(store: any SecretStore, mode: String, service: String, workers: Int, operations: Int) throws {
    switch mode {
    case "same-key":
        guard let last = Payload(try store.read(id(service, "shared"), authorization: nil)) else {
            fail("the shared item is missing or does not decode")
        }
        guard last.sequence == operations - 1 else {
            fail("the shared item is worker \(last.worker)'s write \(last.sequence), not a last write (\(operations - 1)): an update was lost")
        }
        print("same-key: final item is worker \(last.worker)'s last write")
    case "own-key":
        for worker in 0..<workers {
            let last = Payload(try store.read(id(service, "worker-\(worker)"), authorization: nil))
            guard last == Payload(worker: worker, sequence: operations - 1) else {
                fail("worker-\(worker) holds \(String(describing: last)), not its last write")
            }
        }
        let keys = try store.keys(service: service)
        guard keys.count == workers else { fail("\(keys.count) keys listed, expected \(workers)") }
        print("own-key: all \(workers) keys hold their last write")
    case "transitions":
        guard try store.read(id(service, "vault"), authorization: nil) == nil else { fail("the key is not empty at the end") }
        print("transitions: \(operations) rounds held every check")
    case "counter":
        guard let last = Payload(try store.read(id(service, "counter"), authorization: nil)) else {
            fail("the counter is missing or does not decode")
        }
        guard last.counter == workers * operations else {
            fail("counter is \(last.counter), expected \(workers * operations): \(workers * operations - last.counter) updates lost")
        }
        print("counter: \(last.counter) = \(workers) x \(operations), no update lost")
    default:
        fail("unknown mode \(mode)")
    }
    for key in try store.keys(service: service) { try store.delete(id(service, key)) }
}

/// The credentials of the transitions mode: who wrote them, and a check that they decoded whole.
struct StressCredentials: Codable, Sendable, Equatable {
    var worker: Int
    var sequence: Int
    var check: Int

    init(worker: Int, sequence: Int) {
        self.worker = worker
        self.sequence = sequence
        self.check = worker &* 7_919 &+ sequence
    }

    var isWhole: Bool { check == worker &* 7_919 &+ sequence }
}

/// One worker of the transitions mode (see the file's header).
struct Transitions {
    let configuration: VaultConfiguration
    let worker: Int
    let workers: Int
    let syncDirectory: String
    var sequence = 0
    var generator = SystemRandomNumberGenerator()

    init(store: any SecretStore, service: String, worker: Int) {
        // A simulated authenticator that always matches: the store's atomicity is under test here, and
        // every process has its own. `.biometryAny` binds no enrollment, so all processes agree on items.
        let device = SimulatedDevice(biometryType: .fingerprint)
        configuration = VaultConfiguration(store: store, authenticator: device.authenticator, policy: .biometryAny, service: service)
        self.worker = worker
        guard let sync = ProcessInfo.processInfo.environment["BV_STRESS_SYNC"], let count = ProcessInfo.processInfo.environment["BV_STRESS_WORKERS"].flatMap(Int.init)
        else { fail("transitions needs BV_STRESS_SYNC and BV_STRESS_WORKERS") }
        syncDirectory = sync
        workers = count
    }

    /// Errors a stale handle may meet: the item changed, was deleted or was protected since it was read.
    static let expectedConflicts: Set<VaultError.Code> = [.invalidVault, .itemNotFound, .vaultLocked]

    mutating func run(rounds: Int) async throws {
        for round in 0..<rounds {
            barrier("\(round)-start")
            let won = try await storeIntoEmptyKey()
            post("\(round)-store", won.map { $0 ? "protected" : "plain" } ?? "lost")
            barrier("\(round)-stored")
            let results = collect("\(round)-store")
            let winners = results.filter { $0 != "lost" }
            guard winners.count == 1 else { fail("round \(round): \(winners.count) of \(workers) stores into one empty key succeeded") }

            var upgrades = 0
            var downgrades = 0
            for _ in 0..<6 {
                switch try await transition(round: round) {
                case .upgraded: upgrades += 1
                case .downgraded: downgrades += 1
                case .other: break
                }
            }
            post("\(round)-moves", "\(upgrades) \(downgrades)")
            barrier("\(round)-moved")
            if worker == 0 { try checkProtection(round: round, startedProtected: winners[0] == "protected") }
            barrier("\(round)-checked")

            if worker % 2 == 0 {
                _ = try VaultFactory<StressCredentials>.retrieveVaultOrThrow(key: "vault", configuration: configuration).reset()
            } else {
                _ = try await transition(round: round, emptyAllowed: true)
            }
            barrier("\(round)-reset")
            if worker == 0 {
                let vault = try VaultFactory<StressCredentials>.retrieveVaultOrThrow(key: "vault", configuration: configuration)
                guard vault.kind == .empty else { fail("round \(round): a deleted item came back (\(vault.kind))") }
            }
            barrier("\(round)-end")
        }
        print("worker \(worker): \(rounds) rounds")
    }

    /// `true`/`false`: this worker's store (protected/plain) won; `nil`: it found the key taken.
    mutating func storeIntoEmptyKey() async throws -> Bool? {
        let vault = try VaultFactory<StressCredentials>.retrieveVaultOrThrow(key: "vault", configuration: configuration)
        guard vault.kind == .empty else { return nil }
        let protected = Bool.random(using: &generator)
        do {
            if protected {
                _ = try await vault.storeToBiometrics(credentials: next())
            } else {
                _ = try vault.storeToKeychain(credentials: next())
            }
            return protected
        } catch let error as VaultError where error.code == .invalidVault {
            return nil
        }
    }

    enum Move { case upgraded, downgraded, other }

    /// One random operation through a fresh handle (which others may make stale before it writes).
    mutating func transition(round: Int, emptyAllowed: Bool = false) async throws -> Move {
        let vault = try VaultFactory<StressCredentials>.retrieveVaultOrThrow(key: "vault", configuration: configuration)
        do {
            switch vault.kind {
            case .empty:
                if !emptyAllowed { fail("round \(round): the item vanished with no reset") }
                return .other
            case .keychain:
                try checkWhole(vault.credentials)
                if Bool.random(using: &generator) {
                    _ = try await vault.upgrade()
                    return .upgraded
                }
                _ = try await vault.update(credentials: next())
                return .other
            case .locked, .biometrics:
                let unlocked = try await vault.unlock()
                try checkWhole(unlocked.credentials)
                if Bool.random(using: &generator) {
                    _ = try unlocked.downgrade()
                    return .downgraded
                }
                _ = try await unlocked.update(credentials: next())
                return .other
            }
        } catch let error as VaultError where Self.expectedConflicts.contains(error.code) {
            return .other
        }
    }

    func checkWhole(_ credentials: StressCredentials) throws {
        guard credentials.isWhole else { fail("credentials did not decode whole: \(credentials)") }
    }

    func checkProtection(round: Int, startedProtected: Bool) throws {
        var net = 0
        for line in collect("\(round)-moves") {
            let fields = line.split(separator: " ").compactMap { Int($0) }
            guard fields.count == 2 else { fail("bad result line \(line)") }
            net += fields[0] - fields[1]
        }
        let item = try configuration.store.read(SecretItemID(service: configuration.service, key: "vault"), authorization: nil)
        guard let item else { fail("round \(round): the item vanished with no reset") }
        let protectedNow = item.header.protection != .none
        let expected = startedProtected ? (net == 0 || net == -1) : (net == 0 || net == 1)
        let consistent = startedProtected ? (protectedNow == (net == 0)) : (protectedNow == (net == 1))
        guard expected, consistent else {
            fail("round \(round): started \(startedProtected ? "protected" : "plain"), \(net) net upgrades, now \(protectedNow ? "protected" : "plain"): a protection change was lost or doubled")
        }
    }

    mutating func next() -> StressCredentials {
        sequence += 1
        return StressCredentials(worker: worker, sequence: sequence)
    }

    // MARK: file barriers (test scaffolding, not under test)

    func post(_ name: String, _ value: String) {
        let path = "\(syncDirectory)/\(name).\(worker)"
        guard FileManager.default.createFile(atPath: path + ".tmp", contents: Data(value.utf8)), rename(path + ".tmp", path) == 0 else {
            fail("cannot write \(path)")
        }
    }

    func collect(_ name: String) -> [String] {
        (0..<workers).map { other in
            let data = FileManager.default.contents(atPath: "\(syncDirectory)/\(name).\(other)") ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    func barrier(_ name: String) {
        post("barrier-" + name, "")
        for _ in 0..<600_000 {
            let arrived = (0..<workers).filter { access("\(syncDirectory)/barrier-\(name).\($0)", F_OK) == 0 }.count
            if arrived == workers { return }
            usleep(200)
        }
        fail("barrier \(name): not every worker arrived in time")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 8, let number = Int(arguments[6]), let operations = Int(arguments[7]) else {
    fail("usage: VaultStress <file|secret-service> <work|verify> <mode> <dir|-> <service> <worker|workers> <operations>")
}
let store = makeStore(arguments[1], directory: arguments[4])
do {
    switch arguments[2] {
    case "work": try await work(store: store, mode: arguments[3], service: arguments[5], worker: number, operations: operations)
    case "verify": try verify(store: store, mode: arguments[3], service: arguments[5], workers: number, operations: operations)
    default: fail("unknown action \(arguments[2])")
    }
} catch {
    fail("store error: \(error)")
}
#endif
