#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the provider knows about one item without its secret: what every client may see of it, locked
/// or not (the Secret Service shows a locked item's label and attributes).
package struct ItemRecord: Codable, Sendable, Equatable {
    var label: String
    var attributes: [String: String]
    var contentType: String
    var created: UInt64
    var modified: UInt64
    /// A `ProtectionPolicy` raw value; `nil` for a plain item.
    var policy: String?

    var protection: ProtectionPolicy? { policy.flatMap(ProtectionPolicy.init(rawValue:)) }
}

/// A collection's own record.
package struct CollectionRecord: Codable, Sendable, Equatable {
    var id: String
    var label: String
    var created: UInt64
    var modified: UInt64
    /// The policy of items created in it without a `biometrics-vault:policy` attribute.
    var policy: String?

    var protection: ProtectionPolicy? { policy.flatMap(ProtectionPolicy.init(rawValue:)) }
}

/// The provider's list of collections and its aliases.
package struct CatalogRecord: Codable, Sendable, Equatable {
    var collections: [CollectionRecord]
    var aliases: [String: String]
}

/// Where the provider keeps its items: a `SecretStore` (the vault service in production), for the user
/// that runs the provider.
///
/// Layout, in item services and keys of the store:
/// - `secret-service` / `catalog`: the ``CatalogRecord`` (plain);
/// - `secret-service:COLLECTION` / `ITEM`: the item, with its protection. Its payload is a header (the
///   record's length, how many parts follow, and the parts' generation), the ``ItemRecord`` as JSON, and
///   the secret, or as much of it as fits in one item of the store; a protected item's payload holds no
///   record;
/// - `secret-service:COLLECTION:parts` / `ITEM.GENERATION.N`: the rest of a secret too long for one item
///   of the store, with the item's protection. A new generation is written before the item that names it,
///   so the item always names complete parts; the old generation is removed after;
/// - `secret-service:COLLECTION:meta` / `ITEM`: a protected item's ``ItemRecord`` (plain), so that its
///   label and attributes are readable while it is locked.
///
/// So a plain item is one read and one atomic write; a protected item's secret is released only by the
/// store's own check.
package struct ProviderStorage: Sendable {
    let store: any SecretStore

    package init(store: any SecretStore) { self.store = store }
    /// The most bytes one item of the store holds.
    var partSize = VaultLimits.maximumCredentialsSize

    /// The catalog's item (its names pass `SecretItemID`'s checks; built where it is used, so that no
    /// path of the provider can trap).
    static func catalogID() throws -> SecretItemID { try SecretItemID(service: "secret-service", key: "catalog") }
    package static let headerSize = 16

    static func itemService(_ collection: String) -> String { "secret-service:\(collection)" }
    static func metaService(_ collection: String) -> String { "secret-service:\(collection):meta" }
    package static func partService(_ collection: String) -> String { "secret-service:\(collection):parts" }

    func loadCatalog() throws -> CatalogRecord? {
        guard let item = try store.read(try Self.catalogID(), authorization: nil), let payload = item.payload else { return nil }
        return try payload.withUnsafeBytes { try JSONDecoder().decode(CatalogRecord.self, from: Data($0)) }
    }

    func save(_ catalog: CatalogRecord) throws {
        let data = try JSONEncoder().encode(catalog)
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(data)), for: try Self.catalogID(),
                        if: .anything, authorization: nil)
    }

    /// Every item of `collection`: its record and, for a plain item, its secret. An item whose record
    /// or parts cannot be read is left out.
    func loadItems(of collection: String) throws -> [(id: String, record: ItemRecord, secret: SecretBytes?)] {
        let service = Self.itemService(collection)
        var items: [(id: String, record: ItemRecord, secret: SecretBytes?)] = []
        for key in try store.keys(service: service) {
            let id = try SecretItemID(service: service, key: key)
            guard let stored = try store.read(id, authorization: nil) else { continue }
            if stored.header.protection == .none, let payload = stored.payload {
                guard let (record, secret) = try? assemble(collection: collection, item: key, payload, authorization: nil),
                    let record
                else { continue }
                items.append((key, record, secret))
            } else {
                let metaID = try SecretItemID(service: Self.metaService(collection), key: key)
                guard let meta = try store.read(metaID, authorization: nil)?.payload else { continue }
                var record = try meta.withUnsafeBytes { try JSONDecoder().decode(ItemRecord.self, from: Data($0)) }
                // The plain record says what the item is called; the vault service says how it is protected.
                record.policy = stored.header.protection.policy?.rawValue
                items.append((key, record, nil))
            }
        }
        return items
    }

    /// The secret of a protected item, released by `authorization`; `nil` when the store releases none.
    func readSecret(collection: String, item: String, authorization: Authorization?) throws -> SecretBytes? {
        let id = try SecretItemID(service: Self.itemService(collection), key: item)
        guard let stored = try store.read(id, authorization: authorization) else {
            throw VaultError(.itemNotFound, underlying: .message("the item was deleted"))
        }
        guard let payload = stored.payload else { return nil }
        return try assemble(collection: collection, item: item, payload, authorization: authorization).secret
    }

    /// Writes an item. A protected item's record goes first, to its plain record, so that a crash between
    /// the two leaves at worst a record without a secret, which loading skips.
    func write(collection: String, item: String, record: ItemRecord, secret: SecretBytes, authorization: Authorization?) throws {
        let id = try SecretItemID(service: Self.itemService(collection), key: item)
        let protection: ItemProtection = record.protection.map { .protected($0) } ?? .none
        if record.protection != nil {
            try writeRecordOnly(collection: collection, item: item, record: record)
        }
        let header = ItemHeader(protection: protection, enrollment: record.protection == .biometryCurrentSet ? authorization?.enrollment : nil)
        let json = record.protection == nil ? Array(try JSONEncoder().encode(record)) : []
        let generation = UInt64.random(in: 1...UInt64.max)
        var bytes = secret.copyBytes()
        defer { bytes.zeroize() }
        let firstSize = max(0, partSize - Self.headerSize - json.count)
        guard firstSize > 0 || bytes.isEmpty else {
            throw VaultError(.credentialsTooLarge, underlying: .message("an item's label and attributes take more than \(partSize) bytes"))
        }
        let first = min(firstSize, bytes.count)
        var parts: [ArraySlice<UInt8>] = []
        var offset = first
        while offset < bytes.count {
            parts.append(bytes[offset..<min(offset + partSize, bytes.count)])
            offset += partSize
        }
        for (index, part) in parts.enumerated() {
            let partID = try SecretItemID(service: Self.partService(collection), key: Self.partKey(item, generation, index + 1))
            try store.write(StoredItem(header: header, payload: SecretBytes(part)), for: partID, if: .anything, authorization: authorization)
        }
        var payload = Self.header(recordLength: json.count, parts: parts.count, generation: generation) + json
        payload.append(contentsOf: bytes[0..<first])
        defer { payload.zeroize() }
        try store.write(StoredItem(header: header, payload: SecretBytes(payload)), for: id, if: .anything, authorization: authorization)
        try removeParts(collection: collection, item: item, keeping: parts.isEmpty ? nil : generation)
        if record.protection == nil {
            try? store.delete(try SecretItemID(service: Self.metaService(collection), key: item))
        }
    }

    /// Writes a protected item's record alone (its label or attributes changed; the secret is untouched).
    func writeRecordOnly(collection: String, item: String, record: ItemRecord) throws {
        let metaID = try SecretItemID(service: Self.metaService(collection), key: item)
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(try JSONEncoder().encode(record))),
                        for: metaID, if: .anything, authorization: nil)
    }

    func delete(collection: String, item: String) throws {
        try store.delete(try SecretItemID(service: Self.itemService(collection), key: item))
        try? store.delete(try SecretItemID(service: Self.metaService(collection), key: item))
        try? removeParts(collection: collection, item: item, keeping: nil)
    }

    // MARK: Encoding

    package static func partKey(_ item: String, _ generation: UInt64, _ index: Int) -> String {
        "\(item).\(String(generation, radix: 16)).\(index)"
    }

    static func header(recordLength: Int, parts: Int, generation: UInt64) -> [UInt8] {
        func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        return bigEndian(UInt32(recordLength)) + bigEndian(UInt32(parts)) + bigEndian(generation)
    }

    /// The record and the whole secret of an item's payload, its parts read with `authorization`.
    package func assemble(collection: String, item: String, _ payload: SecretBytes, authorization: Authorization?) throws
        -> (record: ItemRecord?, secret: SecretBytes)
    {
        var bytes = payload.copyBytes()
        defer { bytes.zeroize() }
        guard bytes.count >= Self.headerSize else {
            throw VaultError(.invalidVault, underlying: .message("a Secret Service item too short to read"))
        }
        func number(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(0) { $0 << 8 | UInt64($1) } }
        let recordLength = Int(number(0..<4))
        let parts = Int(number(4..<8))
        let generation = number(8..<16)
        guard bytes.count >= Self.headerSize + recordLength else {
            throw VaultError(.invalidVault, underlying: .message("a Secret Service item whose record is cut off"))
        }
        let record = recordLength == 0
            ? nil : try JSONDecoder().decode(ItemRecord.self, from: Data(bytes[Self.headerSize..<(Self.headerSize + recordLength)]))
        var secret = Array(bytes[(Self.headerSize + recordLength)...])
        defer { secret.zeroize() }
        if parts > 0 {
            for index in 1...parts {
                let partID = try SecretItemID(service: Self.partService(collection), key: Self.partKey(item, generation, index))
                guard let part = try store.read(partID, authorization: authorization)?.payload else {
                    throw VaultError(.invalidVault, underlying: .message("a part of a Secret Service item is missing"))
                }
                part.withUnsafeBytes { secret.append(contentsOf: $0) }
            }
        }
        return (record, SecretBytes(secret))
    }

    /// Removes the parts of `item` of every generation but `keeping`.
    private func removeParts(collection: String, item: String, keeping generation: UInt64?) throws {
        let service = Self.partService(collection)
        let kept = generation.map { "\(item).\(String($0, radix: 16))." }
        for key in try store.keys(service: service) where key.hasPrefix("\(item).") && !(kept.map { key.hasPrefix($0) } ?? false) {
            try? store.delete(try SecretItemID(service: service, key: key))
        }
    }
}
#endif
