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
struct ItemRecord: Codable, Sendable, Equatable {
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
struct CollectionRecord: Codable, Sendable, Equatable {
    var id: String
    var label: String
    var created: UInt64
    var modified: UInt64
    /// The policy of items created in it without a `biometrics-vault:policy` attribute.
    var policy: String?

    var protection: ProtectionPolicy? { policy.flatMap(ProtectionPolicy.init(rawValue:)) }
}

/// The provider's list of collections and its aliases.
struct CatalogRecord: Codable, Sendable, Equatable {
    var collections: [CollectionRecord]
    var aliases: [String: String]
}

/// Where the provider keeps its items: a `SecretStore` (the vault service in production), for the user
/// that runs the provider.
///
/// Layout, in item services and keys of the store:
/// - `secret-service` / `catalog`: the ``CatalogRecord`` (plain);
/// - `secret-service:COLLECTION` / `ITEM`: the item, with its protection: the payload is the length of
///   the record (4 bytes, big-endian), the ``ItemRecord`` as JSON, then the secret. A protected item's
///   payload holds no record (length 0);
/// - `secret-service:COLLECTION:meta` / `ITEM`: a protected item's ``ItemRecord`` (plain), so that its
///   label and attributes are readable while it is locked.
///
/// So a plain item is one read and one atomic write; a protected item's secret is released only by the
/// store's own check.
struct ProviderStorage: Sendable {
    let store: any SecretStore

    static let catalogID = try! SecretItemID(service: "secret-service", key: "catalog")

    static func itemService(_ collection: String) -> String { "secret-service:\(collection)" }
    static func metaService(_ collection: String) -> String { "secret-service:\(collection):meta" }

    func loadCatalog() throws -> CatalogRecord? {
        guard let item = try store.read(Self.catalogID, authorization: nil), let payload = item.payload else { return nil }
        return try payload.withUnsafeBytes { try JSONDecoder().decode(CatalogRecord.self, from: Data($0)) }
    }

    func save(_ catalog: CatalogRecord) throws {
        let data = try JSONEncoder().encode(catalog)
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(data)), for: Self.catalogID,
                        if: .anything, authorization: nil)
    }

    /// Every item of `collection`: its record and, for a plain item, its secret.
    func loadItems(of collection: String) throws -> [(id: String, record: ItemRecord, secret: SecretBytes?)] {
        let service = Self.itemService(collection)
        var items: [(id: String, record: ItemRecord, secret: SecretBytes?)] = []
        for key in try store.keys(service: service) {
            let id = try SecretItemID(service: service, key: key)
            guard let stored = try store.read(id, authorization: nil) else { continue }
            if stored.header.protection == .none, let payload = stored.payload {
                let (record, secret) = try Self.decode(payload)
                if let record { items.append((key, record, secret)) }
            } else {
                let metaID = try SecretItemID(service: Self.metaService(collection), key: key)
                guard let meta = try store.read(metaID, authorization: nil)?.payload else { continue }
                let record = try meta.withUnsafeBytes { try JSONDecoder().decode(ItemRecord.self, from: Data($0)) }
                items.append((key, record, nil))
            }
        }
        return items
    }

    /// The secret of a protected item, released by `authorization`; `nil` when the store holds none.
    func readSecret(collection: String, item: String, authorization: Authorization?) throws -> SecretBytes? {
        let id = try SecretItemID(service: Self.itemService(collection), key: item)
        guard let stored = try store.read(id, authorization: authorization) else {
            throw VaultError(.itemNotFound, underlying: .message("the item was deleted"))
        }
        guard let payload = stored.payload else { return nil }
        return try Self.decode(payload).secret
    }

    /// Writes an item. A protected item's record goes first, to its plain record, so that a crash between
    /// the two leaves at worst a record without a secret, which loading skips.
    func write(collection: String, item: String, record: ItemRecord, secret: SecretBytes, authorization: Authorization?) throws {
        let id = try SecretItemID(service: Self.itemService(collection), key: item)
        if let policy = record.protection {
            let metaID = try SecretItemID(service: Self.metaService(collection), key: item)
            try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(try JSONEncoder().encode(record))),
                            for: metaID, if: .anything, authorization: nil)
            let header = ItemHeader(protection: .protected(policy), enrollment: policy == .biometryCurrentSet ? authorization?.enrollment : nil)
            try store.write(StoredItem(header: header, payload: Self.encode(nil, secret)), for: id, if: .anything, authorization: authorization)
        } else {
            try store.write(StoredItem(header: ItemHeader(protection: .none), payload: Self.encode(record, secret)), for: id,
                            if: .anything, authorization: authorization)
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
    }

    static func encode(_ record: ItemRecord?, _ secret: SecretBytes) throws -> SecretBytes {
        let json = try record.map { Array(try JSONEncoder().encode($0)) } ?? []
        let count = UInt32(json.count)
        var bytes = [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + json
        bytes.reserveCapacity(bytes.count + secret.count)
        secret.withUnsafeBytes { bytes.append(contentsOf: $0) }
        defer { bytes.zeroize() }
        return SecretBytes(bytes)
    }

    static func decode(_ payload: SecretBytes) throws -> (record: ItemRecord?, secret: SecretBytes) {
        try payload.withUnsafeBytes { raw throws -> (ItemRecord?, SecretBytes) in
            guard raw.count >= 4 else { throw VaultError(.invalidVault, underlying: .message("a Secret Service item too short to read")) }
            let count = Int(raw[0]) << 24 | Int(raw[1]) << 16 | Int(raw[2]) << 8 | Int(raw[3])
            guard raw.count >= 4 + count else {
                throw VaultError(.invalidVault, underlying: .message("a Secret Service item whose record is cut off"))
            }
            let record = count == 0 ? nil : try JSONDecoder().decode(ItemRecord.self, from: Data(raw[4..<(4 + count)]))
            return (record, SecretBytes(raw[(4 + count)...]))
        }
    }
}
#endif
