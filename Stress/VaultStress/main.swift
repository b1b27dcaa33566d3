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

func work(store: any SecretStore, mode: String, service: String, worker: Int, operations: Int) throws {
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

let arguments = CommandLine.arguments
guard arguments.count == 8, let number = Int(arguments[6]), let operations = Int(arguments[7]) else {
    fail("usage: VaultStress <file|secret-service> <work|verify> <mode> <dir|-> <service> <worker|workers> <operations>")
}
let store = makeStore(arguments[1], directory: arguments[4])
do {
    switch arguments[2] {
    case "work": try work(store: store, mode: arguments[3], service: arguments[5], worker: number, operations: operations)
    case "verify": try verify(store: store, mode: arguments[3], service: arguments[5], workers: number, operations: operations)
    default: fail("unknown action \(arguments[2])")
    }
} catch {
    fail("store error: \(error)")
}
#endif
