import BiometricsVaultCore
import Foundation

/// A check of the `SecretStore` contract failed.
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable {
    public let check: String
    public let message: String
    public var description: String { "\(check): \(message)" }
}

/// The checks every `SecretStore` backend must pass (see the protocol's "Implementation requirements").
///
/// ```swift
/// @Test(arguments: SecretStoreConformance.Check.allCases)
/// func conformance(_ check: SecretStoreConformance.Check) async throws {
///     try await SecretStoreConformance(store: MyStore()).run(check)
/// }
/// ```
/// Every check uses its own fresh service name, so checks do not see each other's items, and deletes
/// what it wrote.
public struct SecretStoreConformance: Sendable {
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        case readAbsentReturnsNil
        case writeThenReadRoundTrips
        /// The last write wins, leaving one item, and a reader running beside overwrites always finds a
        /// complete item: a store that replaces by deleting and then creating fails.
        case writeReplacesAtomically
        case replaceChangesProtection
        case deleteRemoves
        case deleteAbsentSucceeds
        case protectedReadWithoutAuthorizationNeverFails
        case protectedReadWithAuthorization
        case keysListsOnlyTheService
        case keysAreIndependent
        case maximumPayloadSize
        case binaryPayload
        case unicodeKeys
        case concurrentWritesLeaveOneCompleteItem
        case conditionalWriteIntoEmptyKey
        case conditionalWriteMatchesHeader
        case concurrentCreatesHaveOneWinner

        public var description: String { rawValue }
    }

    let store: any SecretStore
    let authorize: @Sendable (ProtectionPolicy) async throws -> Authorization
    let servicePrefix: String

    /// - Parameters:
    ///   - store: the backend under test.
    ///   - authorize: makes an authorization the store accepts for protected items (e.g. from the
    ///     device's authenticator). The default returns a bare ``Authorization``.
    public init(
        store: any SecretStore,
        servicePrefix: String = "bv-conformance",
        authorize: @escaping @Sendable (ProtectionPolicy) async throws -> Authorization = { policy in
            Authorization(policy: policy, enrollment: EnrollmentFingerprint("conformance"))
        }
    ) {
        self.store = store
        self.servicePrefix = servicePrefix
        self.authorize = authorize
    }

    /// Runs every check; throws the first failure.
    public func runAll() async throws {
        for check in Check.allCases { try await run(check) }
    }

    public func run(_ check: Check) async throws {
        let service = "\(servicePrefix).\(check.rawValue).\(UUID().uuidString.prefix(8))"
        let fail = { (message: String) in ConformanceFailure(check: check.rawValue, message: message) }
        let id = try SecretItemID(service: service, key: "item")
        defer { for key in (try? store.keys(service: service)) ?? [] { try? store.delete(SecretItemID(service: service, key: key)) } }
        let plain = ItemHeader(protection: .none)

        switch check {
        case .readAbsentReturnsNil:
            guard try store.read(id, authorization: nil) == nil else { throw fail("read of an absent item was not nil") }

        case .writeThenReadRoundTrips:
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "{\"a\":1}")), for: id, authorization: nil)
            let item = try store.read(id, authorization: nil)
            guard item?.header == plain else { throw fail("header did not round-trip: \(String(describing: item?.header))") }
            guard item?.payload == SecretBytes(utf8: "{\"a\":1}") else { throw fail("payload did not round-trip") }

        case .writeReplacesAtomically:
            for index in 0..<5 {
                try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "v\(index)")), for: id, authorization: nil)
            }
            guard try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "v4") else {
                throw fail("the last write did not win")
            }
            guard try store.keys(service: service) == ["item"] else { throw fail("replacing created more than one item") }
            if let gap = overwriteGap(id) { throw fail(gap) }

        case .replaceChangesProtection:
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "plain")), for: id, authorization: nil)
            let authorization = try await authorize(.biometryAny)
            let protected = ItemHeader(protection: .protected(.biometryAny))
            try store.write(StoredItem(header: protected, payload: SecretBytes(utf8: "secret")), for: id, authorization: authorization)
            guard try store.read(id, authorization: nil)?.header == protected else {
                throw fail("upgrade did not replace the plain item's header")
            }
            guard try store.keys(service: service) == ["item"] else { throw fail("upgrade left two items") }
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "plain again")), for: id, authorization: nil)
            let back = try store.read(id, authorization: nil)
            guard back?.header == plain, back?.payload == SecretBytes(utf8: "plain again") else {
                throw fail("downgrade did not replace the protected item")
            }

        case .deleteRemoves:
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "x")), for: id, authorization: nil)
            try store.delete(id)
            guard try store.read(id, authorization: nil) == nil else { throw fail("item still there after delete") }
            guard try store.keys(service: service).isEmpty else { throw fail("key still listed after delete") }

        case .deleteAbsentSucceeds:
            try store.delete(id)

        case .protectedReadWithoutAuthorizationNeverFails:
            let authorization = try await authorize(.biometryCurrentSet)
            let header = ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: authorization.enrollment)
            try store.write(StoredItem(header: header, payload: SecretBytes(utf8: "secret")), for: id, authorization: authorization)
            guard let item = try store.read(id, authorization: nil) else { throw fail("protected item not found") }
            guard item.header == header else { throw fail("protected header did not round-trip") }
            if let payload = item.payload, payload != SecretBytes(utf8: "secret") { throw fail("wrong payload") }

        case .protectedReadWithAuthorization:
            let authorization = try await authorize(.biometryAny)
            let header = ItemHeader(protection: .protected(.biometryAny))
            try store.write(StoredItem(header: header, payload: SecretBytes(utf8: "secret")), for: id, authorization: authorization)
            guard try store.read(id, authorization: authorization)?.payload == SecretBytes(utf8: "secret") else {
                throw fail("authorized read did not return the payload")
            }

        case .keysListsOnlyTheService:
            let other = try SecretItemID(service: service + ".other", key: "elsewhere")
            defer { try? store.delete(other) }
            for key in ["b", "a", "c"] {
                try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: key)), for: SecretItemID(service: service, key: key), authorization: nil)
            }
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "o")), for: other, authorization: nil)
            let keys = try store.keys(service: service)
            guard keys == ["a", "b", "c"] else { throw fail("keys(service:) returned \(keys)") }

        case .keysAreIndependent:
            let second = try SecretItemID(service: service, key: "item2")
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "one")), for: id, authorization: nil)
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "two")), for: second, authorization: nil)
            try store.delete(second)
            guard try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "one") else {
                throw fail("deleting one key touched another")
            }

        case .maximumPayloadSize:
            let big = SecretBytes([UInt8](repeating: UInt8(ascii: "x"), count: VaultLimits.maximumCredentialsSize))
            try store.write(StoredItem(header: plain, payload: big), for: id, authorization: nil)
            guard try store.read(id, authorization: nil)?.payload == big else { throw fail("64 KiB payload did not round-trip") }

        case .binaryPayload:
            let bytes = SecretBytes((0...255).map { UInt8($0) })
            try store.write(StoredItem(header: plain, payload: bytes), for: id, authorization: nil)
            guard try store.read(id, authorization: nil)?.payload == bytes else { throw fail("binary payload changed") }

        case .unicodeKeys:
            let key = try SecretItemID(service: service, key: "ключ 🔑 ..\u{301}")
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "u")), for: key, authorization: nil)
            guard try store.read(key, authorization: nil)?.payload == SecretBytes(utf8: "u") else {
                throw fail("unicode key did not round-trip")
            }
            guard try store.keys(service: service).contains(key.key) else { throw fail("unicode key not listed") }

        case .concurrentWritesLeaveOneCompleteItem:
            let store = self.store
            let values = (0..<20).map { "value-\($0)-" + String(repeating: "z", count: $0 * 50) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in values {
                    group.addTask {
                        try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: value)), for: id, authorization: nil)
                    }
                }
                try await group.waitForAll()
            }
            guard let payload = try store.read(id, authorization: nil)?.payload,
                values.contains(where: { SecretBytes(utf8: $0) == payload })
            else { throw fail("concurrent writes left no complete value") }
            guard try store.keys(service: service) == ["item"] else { throw fail("concurrent writes left several items") }

        case .conditionalWriteIntoEmptyKey:
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "first")), for: id, if: .absent, authorization: nil)
            do {
                try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "second")), for: id, if: .absent, authorization: nil)
                throw fail("a write expecting an empty key replaced an item")
            } catch let error as VaultError {
                guard error.code == .invalidVault else { throw fail("expected invalidVault, got \(error)") }
            }
            guard try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "first") else {
                throw fail("a refused write changed the item")
            }

        case .conditionalWriteMatchesHeader:
            let policy = ProtectionPolicy.biometryCurrentSet
            let authorization = try await authorize(policy)
            let expectations: [(WriteCondition, VaultError.Code)] = [
                (.plain, .itemNotFound),
                (.protected(policy, enrollment: authorization.enrollment), .itemNotFound),
            ]
            for (condition, code) in expectations {
                try expect(code, fail) {
                    try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "x")), for: id, if: condition, authorization: nil)
                }
                guard try store.read(id, authorization: nil) == nil else { throw fail("a refused write created the item") }
            }
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "plain")), for: id, if: .absent, authorization: nil)
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "plain 2")), for: id, if: .plain, authorization: nil)
            let header = ItemHeader(protection: .protected(policy), enrollment: authorization.enrollment)
            try store.write(StoredItem(header: header, payload: SecretBytes(utf8: "secret")), for: id, if: .plain, authorization: authorization)
            // A stale plain handle must not strip the protection.
            try expect(.invalidVault, fail) {
                try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "stale")), for: id, if: .plain, authorization: nil)
            }
            // Bound to another enrollment: the item stays invalid.
            try expect(.biometryChanged, fail) {
                try store.write(
                    StoredItem(header: ItemHeader(protection: .protected(policy), enrollment: EnrollmentFingerprint("other-set")), payload: SecretBytes(utf8: "rebound")),
                    for: id, if: .protected(policy, enrollment: EnrollmentFingerprint("other-set")), authorization: authorization)
            }
            guard try store.read(id, authorization: nil)?.header == header else { throw fail("a refused write changed the header") }
            try store.write(
                StoredItem(header: header, payload: SecretBytes(utf8: "secret 2")), for: id,
                if: .protected(policy, enrollment: authorization.enrollment), authorization: authorization)
            guard try store.read(id, authorization: authorization)?.payload == SecretBytes(utf8: "secret 2") else {
                throw fail("a matching protected write did not replace the item")
            }

        case .concurrentCreatesHaveOneWinner:
            let store = self.store
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        do {
                            try store.write(
                                StoredItem(header: plain, payload: SecretBytes(utf8: "writer \(index)")), for: id, if: .absent,
                                authorization: nil)
                            return true
                        } catch let error as VaultError where error.code == .invalidVault {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            guard winners == 1 else { throw fail("\(winners) of 16 concurrent writes into an empty key succeeded") }
        }
    }

    /// Overwrites `id` (which holds an item) again and again while a second thread reads it, and returns
    /// what a read saw that it never may: no item, or one that is not one of the values written. A store
    /// that replaces by deleting and then creating has such a moment, and a reader running beside it
    /// finds it. A thread, not a task: the reader must run while the writes do, whatever the pool's width.
    /// The writes start once the reader has read, and go on until it has read a few times more: a
    /// reader that a loaded machine schedules late still runs beside them.
    private func overwriteGap(_ id: SecretItemID) -> String? {
        let store = self.store
        let plain = ItemHeader(protection: .none)
        let values = (0..<40).map { SecretBytes(utf8: "overwrite \($0)") }
        let writing = LockedValue(true)
        let seen = LockedValue<String?>(nil)
        do {
            try store.write(StoredItem(header: plain, payload: values[0]), for: id, authorization: nil)
        } catch {
            return "an overwrite failed: \(error)"
        }
        let readerDone = DispatchSemaphore(value: 0)
        let readerStarted = DispatchSemaphore(value: 0)
        let reads = LockedValue(0)
        Thread {
            defer { readerDone.signal() }
            repeat {
                defer {
                    if reads.withLock({ count in
                        count += 1
                        return count == 1
                    }) { readerStarted.signal() }
                }
                do {
                    guard let item = try store.read(id, authorization: nil) else {
                        seen.withLock { $0 = "a read during an overwrite found no item" }
                        return
                    }
                    guard let payload = item.payload, values.contains(payload) else {
                        seen.withLock { $0 = "a read during an overwrite found a value never written" }
                        return
                    }
                } catch {
                    seen.withLock { $0 = "a read during an overwrite failed: \(error)" }
                    return
                }
            } while writing.withLock { $0 }
        }.start()
        var writeFailure: String?
        _ = readerStarted.wait(timeout: .now() + .seconds(10))
        let readsBefore = reads.withLock { $0 }
        // At least the 39 other values, and until the reader has read 20 times beside the writes (at most
        // 400 writes).
        for index in 1..<400 {
            if index >= values.count, reads.withLock({ $0 }) - readsBefore >= 20 || seen.withLock({ $0 }) != nil { break }
            do {
                try store.write(StoredItem(header: plain, payload: values[index % values.count]), for: id, authorization: nil)
            } catch {
                writeFailure = "an overwrite failed: \(error)"
                break
            }
        }
        writing.withLock { $0 = false }
        readerDone.wait()
        return seen.withLock { $0 } ?? writeFailure
    }

    /// Runs `body` and requires it to throw a `VaultError` with `code`.
    private func expect(_ code: VaultError.Code, _ fail: (String) -> ConformanceFailure, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as VaultError {
            guard error.code == code else { throw fail("expected \(code), got \(error)") }
            return
        }
        throw fail("expected \(code), the write succeeded")
    }
}
