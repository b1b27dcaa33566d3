// libFuzzer target: the Secret Service provider's records in the vault service (`ProviderStorage`), which
// every program of the user can rewrite through the service (`Write` of `secret-service:*` items): the
// catalog (collections and aliases, JSON), a plain item's payload (a 16-byte header of the record's
// length, the parts' count and generation, then the `ItemRecord` JSON and the secret), and a protected
// item's `meta` record.
//
// Invariants, for every input:
// - nothing traps (AddressSanitizer is on);
// - a payload is read (`assemble`) or refused as `invalidVault` or a decoding error, never another way;
//   read, its record is the JSON after the header and its secret the bytes after the record followed by
//   its parts, in order;
// - a record that decodes encodes to JSON that decodes to the same record.
//
// The first input byte picks what the rest is (mod 3): 0, a catalog; 1, an item record; 2, a payload
// after one byte of part sizes (the parts of its generation are in the store, each that many bytes).
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretServiceProvider
import BiometricsVaultTesting
import FoundationEssentials
import FuzzSupport

func roundTrips<Record: Codable & Equatable>(_ type: Record.Type, _ bytes: [UInt8]) {
    guard let record = try? JSONDecoder().decode(Record.self, from: Data(bytes)) else { return }
    do {
        let again = try JSONDecoder().decode(Record.self, from: JSONEncoder().encode(record))
        fuzzRequire(again == record, "a \(Record.self) changed through its own JSON")
    } catch {
        fuzzRequire(false, "a \(Record.self) did not read back: \(error)")
    }
}

func checkPayload(partSize: Int, _ bytes: [UInt8]) {
    let store = SimulatedDevice().store
    let storage = ProviderStorage(store: store)
    let parts = bytes.count >= 8 ? Int(bytes[4..<8].reduce(0) { $0 << 8 | UInt32($1) }) : 0
    let generation = bytes.count >= 16 ? bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) } : 0
    var expectedParts: [UInt8] = []
    for index in 1...max(1, min(parts, 3)) where parts > 0 {
        let part = [UInt8](repeating: UInt8(index), count: partSize)
        expectedParts += part
        guard let id = try? SecretItemID(service: ProviderStorage.partService("c"), key: ProviderStorage.partKey("i", generation, index)) else {
            return
        }
        try? store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(part)), for: id, if: .anything, authorization: nil)
    }
    do {
        let (record, secret) = try storage.assemble(collection: "c", item: "i", SecretBytes(bytes), authorization: nil)
        let recordLength = Int(bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) })
        fuzzRequire(parts <= 3, "a payload naming \(parts) parts was read with 3 in the store")
        fuzzRequire((record == nil) == (recordLength == 0), "a record read from a payload whose record length is \(recordLength)")
        fuzzRequire(
            secret.copyBytes() == Array(bytes[(ProviderStorage.headerSize + recordLength)...]) + expectedParts,
            "the secret is not the payload's rest and its parts")
    } catch let error as VaultError {
        fuzzRequire(error.code == .invalidVault, "a payload refused as \(error.code)")
    } catch is DecodingError {
    } catch {
        fuzzRequire(false, "a payload refused by \(type(of: error))")
    }
}

func fuzzProviderRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    switch input.byte() % 3 {
    case 0: roundTrips(CatalogRecord.self, input.rest())
    case 1: roundTrips(ItemRecord.self, input.rest())
    default: checkPayload(partSize: Int(input.byte() % 64), input.rest())
    }
    return 0
}

runLibFuzzer(fuzzProviderRecord)
#endif
