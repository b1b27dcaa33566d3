#if canImport(Security) || APPLE_SDK_STUBS
import BiometricsVaultCore
import Foundation
import Testing

#if APPLE_SDK_STUBS
import BiometricsVaultAppleCheck
#else
import BiometricsVaultApple
#endif

// The exact SecItem queries the Keychain store sends, for every kind of write, read and transition.
// Expected dictionaries are written out literally (not built with the store's helpers).

private let service = "com.example.app"
private let key = "login"
private let staging = "\u{1}bv-staging\u{1}login"
private let marker = "\u{1}bv-protected\u{1}login"
/// The passcode marker a protected write adds (plain, this device only, no data).
private let markerAdd = Query([
    .itemClass: .genericPassword, .service: .text(service), .account: .text(marker),
    .accessible: .accessibility(.afterFirstUnlockThisDeviceOnly),
])

private func itemID() throws -> SecretItemID { try SecretItemID(service: service, key: key) }
private func plain(_ text: String) -> StoredItem {
    StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: text))
}
private func protected(_ text: String, _ policy: ProtectionPolicy, enrollment: String? = nil) -> StoredItem {
    StoredItem(
        header: ItemHeader(protection: .protected(policy), enrollment: enrollment.flatMap(EnrollmentFingerprint.init)),
        payload: SecretBytes(utf8: text))
}

/// class + service + account (+ context), as every identity query on iOS.
private func identity(_ account: String, _ context: KeychainContextReference = .nonInteractive) -> Query {
    Query([.itemClass: .genericPassword, .service: .text(service), .account: .text(account), .authenticationContext: .context(context)])
}
private func attributesProbe(_ account: String) -> Query {
    identity(account).merging([.returnAttributes: .bool(true), .matchLimit: .matchOne])
}
private func dataRead(_ account: String, _ context: KeychainContextReference) -> Query {
    identity(account, context).merging([.returnData: .bool(true), .matchLimit: .matchOne])
}

/// An authorization whose context is an evaluated fake LAContext.
private func evaluatedAuthorization(_ policy: ProtectionPolicy) async throws -> (Authorization, FakeLAContext) {
    let device = FakeLADevice()
    let authorization = try await device.authenticator.authenticate(for: policy, prompt: .default)
    let context = try #require(authorization.context as? FakeLAContext)
    return (authorization, context)
}

@Suite("Keychain queries")
struct KeychainQueryTests {
    @Test func newPlainItemIsOneAddWithAccessibleAndHeader() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("{\"a\":1}"), for: itemID(), authorization: nil)
        #expect(
            keychain.calls == [
                .add(
                    Query([
                        .itemClass: .genericPassword, .service: .text(service), .account: .text(key),
                        .generic: .textData("bv1;none"), .valueData: .secret(SecretBytes(utf8: "{\"a\":1}")),
                        .accessible: .accessibility(.afterFirstUnlock),
                    ])),
                // A staged item of an interrupted replace would now be stale.
                .delete(identity(staging)),
                // A plain item has no passcode marker.
                .delete(identity(marker)),
            ])
    }

    @Test(arguments: [
        (ProtectionPolicy.biometryCurrentSet, KeychainAccessControlFlags.biometryCurrentSet),
        (.biometryAny, .biometryAny), (.userPresence, .userPresence), (.devicePasscode, .devicePasscode),
    ])
    func newProtectedItemHasAccessControlAndNeverAccessible(policy: ProtectionPolicy, flags: KeychainAccessControlFlags)
        async throws
    {
        let keychain = FakeKeychain()
        let store = KeychainStore(synchronizable: true, platform: .iOSFamily, client: keychain)
        let (authorization, context) = try await evaluatedAuthorization(policy)
        let enrollment = policy.bindsEnrollment ? "ab01" : nil
        try store.write(protected("s", policy, enrollment: enrollment), for: itemID(), authorization: authorization)
        let expectedHeader = "bv1;\(policy.rawValue)" + (enrollment.map { ";" + $0 } ?? "")
        let add = Query([
            .itemClass: .genericPassword, .service: .text(service), .account: .text(key),
            .generic: .textData(expectedHeader), .valueData: .secret(SecretBytes(utf8: "s")),
            .accessControl: .accessControl(.whenPasscodeSetThisDeviceOnly, flags),
            .authenticationContext: .context(.evaluated(context)),
        ])
        #expect(keychain.calls.first == .add(add))
        // Never kSecAttrAccessible beside kSecAttrAccessControl, never synchronizable when protected.
        #expect(add[.accessible] == nil)
        #expect(keychain.items.count == 1)
        #expect(keychain.items.first?.synchronizable == false)
        #expect(keychain.items.first?.accessControl == flags)
        // Once the item is complete: its passcode marker.
        #expect(keychain.calls.last == .add(markerAdd))
        #expect(keychain.markers == [marker])
    }

    @Test func macOSUsesTheDataProtectionKeychainAndRetiresFileBasedItems() throws {
        let keychain = FakeKeychain(macOS: true)
        let store = KeychainStore(platform: .macOS, client: keychain)
        try store.write(plain("p"), for: itemID(), authorization: nil)
        let calls = keychain.calls
        #expect(calls.count == 4)
        guard case .add(let add) = calls.first else { Issue.record("first call is not an add"); return }
        #expect(add[.useDataProtectionKeychain] == .bool(true))
        #expect(calls[1] == .delete(identity(staging).merging([.useDataProtectionKeychain: .bool(true)])))
        // The 0.30 location (file-based keychain): no kSecUseDataProtectionKeychain, no group, no sync.
        #expect(calls[2] == .delete(identity(key)))
        #expect(calls[3] == .delete(identity(marker).merging([.useDataProtectionKeychain: .bool(true)])))
    }

    @Test func synchronizableAndAccessGroupApplyToPlainItemsAndEveryQuery() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(accessGroup: "TEAM.shared", synchronizable: true, platform: .iOSFamily, client: keychain)
        try store.write(plain("p"), for: itemID(), authorization: nil)
        guard case .add(let add) = keychain.calls.first else { Issue.record("no add"); return }
        #expect(add[.synchronizable] == .bool(true))
        #expect(add[.accessGroup] == .text("TEAM.shared"))
        #expect(
            keychain.calls[1]
                == .delete(identity(staging).merging([.accessGroup: .text("TEAM.shared"), .synchronizable: .synchronizableAny])))
    }

    @Test func thisDeviceOnlyAccessibilityNeverSyncs() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(
            accessibility: .afterFirstUnlockThisDeviceOnly, synchronizable: true, platform: .iOSFamily, client: keychain)
        #expect(store.synchronizable == false)
        try store.write(plain("p"), for: itemID(), authorization: nil)
        guard case .add(let add) = keychain.calls.first else { Issue.record("no add"); return }
        #expect(add[.synchronizable] == nil)
        #expect(add[.accessible] == .accessibility(.afterFirstUnlockThisDeviceOnly))
    }

    @Test func plainUpdateIsAddThenUpdateOnDuplicate() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("old"), for: itemID(), authorization: nil)
        keychain.resetCalls()
        try store.write(plain("new"), for: itemID(), authorization: nil)
        #expect(keychain.calls.count == 3)
        #expect(keychain.calls[1] == .copy(attributesProbe(key)))
        #expect(
            keychain.calls[2]
                == .update(identity(key), Query([.valueData: .secret(SecretBytes(utf8: "new")), .generic: .textData("bv1;none")])))
        #expect(try store.read(itemID(), authorization: nil)?.payload == SecretBytes(utf8: "new"))
    }

    @Test func protectedUpdateUsesTheEvaluatedContextOnce() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        let (authorization, context) = try await evaluatedAuthorization(.biometryAny)
        try store.write(protected("one", .biometryAny), for: itemID(), authorization: authorization)
        keychain.resetCalls()
        try store.write(protected("two", .biometryAny), for: itemID(), authorization: authorization)
        #expect(keychain.calls.count == 4)
        #expect(
            keychain.calls[2]
                == .update(
                    identity(key, .evaluated(context)),
                    Query([.valueData: .secret(SecretBytes(utf8: "two")), .generic: .textData("bv1;biometryAny")])))
        // Items written before markers existed get one on their next write (a duplicate here).
        #expect(keychain.calls[3] == .add(markerAdd))
    }

    @Test func upgradeGoesThroughAStagingItem() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("plain"), for: itemID(), authorization: nil)
        keychain.resetCalls()
        let (authorization, context) = try await evaluatedAuthorization(.biometryCurrentSet)
        try store.write(protected("secret", .biometryCurrentSet, enrollment: "ab01"), for: itemID(), authorization: authorization)
        let evaluated = KeychainContextReference.evaluated(context)
        let stagedAdd = Query([
            .itemClass: .genericPassword, .service: .text(service), .account: .text(staging),
            .generic: .textData("bv1;biometryCurrentSet;ab01"), .valueData: .secret(SecretBytes(utf8: "secret")),
            .accessControl: .accessControl(.whenPasscodeSetThisDeviceOnly, .biometryCurrentSet),
            .authenticationContext: .context(evaluated),
        ])
        let calls = keychain.calls
        #expect(calls.count == 7)
        #expect(calls[1] == .copy(attributesProbe(key)))
        #expect(calls[2] == .delete(identity(staging, evaluated)))
        #expect(calls[3] == .add(stagedAdd))
        #expect(calls[4] == .delete(identity(key, evaluated)))
        #expect(calls[5] == .update(identity(staging, evaluated), Query([.account: .text(key)])))
        #expect(calls[6] == .add(markerAdd))
        #expect(keychain.items.map(\.account) == [key])
        #expect(keychain.items.first?.accessControl == .biometryCurrentSet)
        #expect(keychain.items.first?.accessible == nil)
    }

    @Test func downgradeGoesThroughAPlainStagingItem() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        let (authorization, _) = try await evaluatedAuthorization(.userPresence)
        try store.write(protected("secret", .userPresence), for: itemID(), authorization: authorization)
        keychain.resetCalls()
        try store.write(plain("plain"), for: itemID(), authorization: nil)
        let calls = keychain.calls
        #expect(calls.count == 7)
        #expect(
            calls[3]
                == .add(
                    Query([
                        .itemClass: .genericPassword, .service: .text(service), .account: .text(staging),
                        .generic: .textData("bv1;none"), .valueData: .secret(SecretBytes(utf8: "plain")),
                        .accessible: .accessibility(.afterFirstUnlock),
                    ])))
        #expect(calls[5] == .update(identity(staging), Query([.account: .text(key)])))
        #expect(calls[6] == .delete(identity(marker)))
        #expect(keychain.markers.isEmpty)
        let item = try #require(try store.read(itemID(), authorization: nil))
        #expect(item.header == ItemHeader(protection: .none))
        #expect(item.payload == SecretBytes(utf8: "plain"))
        #expect(keychain.items.first?.accessControl == nil)
    }

    static let protections: [ItemProtection] = [.none] + ProtectionPolicy.allCases.map { .protected($0) }
    static let transitions = protections.flatMap { from in protections.map { (from, $0) } }

    /// Every protection to every protection: the same one is updated in place, any other goes through
    /// the staging item; the result is always one item with exactly the new protection's attributes.
    @Test(arguments: transitions)
    func everyTransition(from: ItemProtection, to: ItemProtection) async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(synchronizable: true, platform: .iOSFamily, client: keychain)
        let device = FakeLADevice()
        func write(_ protection: ItemProtection, _ text: String) async throws {
            var authorization: Authorization?
            if let policy = protection.policy {
                authorization = try await device.authenticator.authenticate(for: policy, prompt: .default)
            }
            let item = StoredItem(header: ItemHeader(protection: protection), payload: SecretBytes(utf8: text))
            try store.write(item, for: itemID(), authorization: authorization)
        }
        try await write(from, "before")
        keychain.resetCalls()
        try await write(to, "after")
        let kinds = keychain.calls.map { call -> String in
            switch call {
            case .add: "add"
            case .copy: "copy"
            case .update: "update"
            case .delete: "delete"
            }
        }
        // Then the passcode marker: added for a protected item (kept up to date on an in-place update),
        // deleted for a plain one (nothing to do when it stays plain).
        let marking = to == .none ? (from == .none ? [] : ["delete"]) : ["add"]
        #expect(kinds == (from == to ? ["add", "copy", "update"] : ["add", "copy", "delete", "add", "delete", "update"]) + marking)
        #expect(keychain.markers == (to == .none ? [] : [marker]))
        let item = try #require(keychain.items.first)
        #expect(keychain.items.count == 1)
        #expect(item.account == key)
        #expect(item.generic == Data(ItemHeader(protection: to).attributeValue.utf8))
        #expect(item.value == SecretBytes(utf8: "after"))
        #expect(item.accessControl == to.policy.map(KeychainAccessControlFlags.init))
        #expect(item.accessible == (to == .none ? .afterFirstUnlock : nil))
        #expect(item.synchronizable == (to == .none))
    }

    @Test func plainReadIsAttributesThenDataWithoutInteraction() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("p"), for: itemID(), authorization: nil)
        keychain.resetCalls()
        let item = try store.read(itemID(), authorization: nil)
        #expect(item?.payload == SecretBytes(utf8: "p"))
        #expect(keychain.calls == [.copy(attributesProbe(key)), .copy(dataRead(key, .nonInteractive))])
    }

    @Test func protectedReadWithoutAuthorizationNeverAsksForData() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        let (authorization, context) = try await evaluatedAuthorization(.biometryAny)
        try store.write(protected("s", .biometryAny), for: itemID(), authorization: authorization)
        keychain.resetCalls()
        let locked = try store.read(itemID(), authorization: nil)
        #expect(locked == StoredItem(header: ItemHeader(protection: .protected(.biometryAny)), payload: nil))
        #expect(keychain.calls == [.copy(attributesProbe(key))])
        keychain.resetCalls()
        let unlocked = try store.read(itemID(), authorization: authorization)
        #expect(unlocked?.payload == SecretBytes(utf8: "s"))
        #expect(keychain.calls == [.copy(attributesProbe(key)), .copy(dataRead(key, .evaluated(context)))])
    }

    @Test func anInvalidatedAuthorizationIsNeverPassedToTheKeychain() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        let (authorization, _) = try await evaluatedAuthorization(.biometryAny)
        try store.write(protected("s", .biometryAny), for: itemID(), authorization: authorization)
        authorization.invalidate()
        keychain.resetCalls()
        #expect(throws: VaultError.interactionNotAllowed) { try store.read(itemID(), authorization: authorization) }
        #expect(keychain.calls.last == .copy(dataRead(key, .nonInteractive)))
    }

    @Test func keysListsStagedItemsUnderTheirKeyAndSkipsNothingElse() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("b"), for: SecretItemID(service: service, key: "b"), authorization: nil)
        keychain.seed(
            .init(service: service, account: staging, fileBased: false, generic: Data("bv1;none".utf8),
                value: SecretBytes(utf8: "x"), accessible: .afterFirstUnlock, accessControl: nil, synchronizable: false))
        // A passcode marker is no key.
        keychain.seed(
            .init(service: service, account: "\u{1}bv-protected\u{1}c", fileBased: false, generic: nil,
                value: SecretBytes([UInt8]()), accessible: .afterFirstUnlockThisDeviceOnly, accessControl: nil,
                synchronizable: false))
        keychain.resetCalls()
        #expect(try store.keys(service: service) == ["b", key])
        #expect(
            keychain.calls == [
                .copy(
                    Query([
                        .itemClass: .genericPassword, .service: .text(service), .returnAttributes: .bool(true),
                        .matchLimit: .matchAll, .authenticationContext: .context(.nonInteractive),
                    ]))
            ])
    }

    @Test func deleteRemovesMarkerStagingThenPrimaryAndTreatsMissingAsSuccess() throws {
        let keychain = FakeKeychain(macOS: true)
        let store = KeychainStore(platform: .macOS, client: keychain)
        try store.delete(itemID())
        let dataProtection: [Query.Key: Query.Value] = [.useDataProtectionKeychain: .bool(true)]
        #expect(
            keychain.calls == [
                .delete(identity(marker).merging(dataProtection)),  // the passcode marker first
                .delete(identity(key)),  // the file-based keychain (0.30)
                .delete(identity(staging).merging(dataProtection)),
                .delete(identity(key).merging(dataProtection)),
            ])
    }
}
#endif
