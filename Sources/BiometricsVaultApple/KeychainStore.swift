#if canImport(Security) || APPLE_SDK_STUBS
import BiometricsVaultCore
import Foundation

/// The Apple Keychain as a ``SecretStore``: one generic-password item per key.
///
/// Layout of an item (compatible with BiometricsVault 0.30):
/// - `kSecClass` = generic password, `kSecAttrService` = the vault's service (by default the bundle id, as
///   0.30 used), `kSecAttrAccount` = the key;
/// - `kSecValueData` = the credentials JSON, exactly what 0.30 stored;
/// - `kSecAttrGeneric` = the ``ItemHeader`` text (`bv1;biometryCurrentSet;bsh-…`, the enrollment binding
///   tagged with its source: ``EnrollmentBinding``). A 0.30 item has none: it is read as a legacy item
///   (format version 0) and moved into the current format on its next write.
/// - beside a protected item, a passcode marker (``Slot/passcodeMarker``), so that an item the OS deleted
///   with the device passcode reads as ``VaultInvalidation/passcodeRemoved``.
///
/// Plain items get `kSecAttrAccessible` = ``KeychainAccessibility`` (default `afterFirstUnlock`, as 0.30)
/// and may sync through iCloud Keychain. Protected items get `kSecAttrAccessControl` from
/// `SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
/// <policy flag>, nil)`, never `kSecAttrAccessible` beside it (the Keychain rejects that with `errSecParam`),
/// and never sync. On macOS every query sets `kSecUseDataProtectionKeychain`.
///
/// ## Atomic replace
/// A write first tries `SecItemAdd`; on `errSecDuplicateItem` it updates the item in place when the
/// protection is unchanged (one call, and with the evaluated `LAContext` no second prompt). An access
/// control cannot be changed in place, so a change of protection (upgrade, downgrade, another policy, a
/// 0.30 item) goes through a staging item: add the complete new item under a staging account, delete the
/// old item, then rename the staging item to the key. At every instant the Keychain holds the complete old
/// item, or the complete new one (possibly still under the staging account), so requirement 2 of
/// ``SecretStore`` holds: `read` serves the old item while it exists, else the staged one, and finishes the
/// rename (repair) on the next access that is allowed to touch it. Staging accounts start with U+0001, which
/// no valid key can contain, so they never collide with a key and ``keys(service:)`` never lists them.
///
/// ## Never prompts
/// Every query that is not given an evaluated context carries a fresh `LAContext` with
/// `interactionNotAllowed = true`. A protected item's data is only ever asked for with the evaluated
/// context of an ``Authorization`` from ``LocalAuthenticator``.
///
/// ## Threads and processes
/// All Keychain calls of all `KeychainStore` values in the process run one at a time (one lock), so a
/// check-then-write is never interleaved with another write in this process. Across processes, only
/// `store` into an empty key (``WriteCondition/absent``, add-only) is atomic; see
/// ``write(_:for:if:authorization:)``.
public struct KeychainStore: SecretStore {
    public var name: String { "keychain" }

    /// `kSecAttrAccessGroup` for every item, or `nil` for the app's default group.
    public let accessGroup: String?
    /// When plain items are readable. Protected items always use `whenPasscodeSetThisDeviceOnly`.
    public let accessibility: KeychainAccessibility
    /// Whether plain items sync through iCloud Keychain (needs an accessibility that allows it).
    /// Protected items never sync.
    public let synchronizable: Bool
    public let platform: KeychainPlatform
    let client: any KeychainClient

    /// The store for this device's Keychain.
    ///
    /// - Parameters:
    ///   - accessGroup: a keychain access group to share items with other apps of the team, or `nil`.
    ///     (0.30 items live in the default group; with an explicit group they are not found.)
    ///   - accessibility: for plain items; the default matches BiometricsVault 0.30.
    ///   - synchronizable: sync plain items through iCloud Keychain. Ignored (treated as `false`) when
    ///     `accessibility` is a "this device only" level, which cannot sync.
    public init(
        accessGroup: String? = nil, accessibility: KeychainAccessibility = .afterFirstUnlock,
        synchronizable: Bool = false
    ) {
        self.init(
            accessGroup: accessGroup, accessibility: accessibility, synchronizable: synchronizable,
            platform: .current, client: SystemKeychainClient.platformDefault)
    }

    /// For tests: any platform, any client.
    package init(
        accessGroup: String? = nil, accessibility: KeychainAccessibility = .afterFirstUnlock,
        synchronizable: Bool = false, platform: KeychainPlatform, client: any KeychainClient
    ) {
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.synchronizable = synchronizable && accessibility.allowsSynchronization
        self.platform = platform
        self.client = client
    }

    // MARK: SecretStore

    public func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        try Self.serialised { try readSerialised(id, authorization: authorization) }
    }

    /// Conditional write. ``WriteCondition/absent`` is `SecItemAdd` alone: the Keychain itself refuses a
    /// second item (`errSecDuplicateItem`), atomically across processes. The other conditions are a
    /// read of the header and then an update (or a staged replace): SecItem has no compare-and-swap,
    /// so that check is atomic only among the `KeychainStore` calls of this process (one lock); another
    /// process of the app (an extension sharing the access group) could write between the check and the
    /// update.
    public func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        try Self.serialised { try writeSerialised(item, for: id, if: condition, authorization: authorization) }
    }

    public func delete(_ id: SecretItemID) throws {
        try Self.serialised { try deleteSerialised(id) }
    }

    public func keys(service: String) throws -> [String] {
        try Self.serialised { try keysSerialised(service: service) }
    }

    // MARK: Where items live

    /// The three places an item's bytes can be, and the marker of a protected item.
    package enum Slot: Hashable, Sendable {
        /// The item under its key.
        case primary
        /// The complete new item of a replace that has not finished yet.
        case staging
        /// macOS: a BiometricsVault 0.30 item in the file-based keychain.
        case fileBasedKeychain
        /// A plain item without data that says the key holds a protected item. Removing the device
        /// passcode deletes every protected item ("when passcode set, this device only") but not this one,
        /// so a key whose item vanished while its marker remains reads as ``VaultInvalidation/passcodeRemoved``.
        case passcodeMarker
    }

    /// Staging and marker accounts start with a control character, which ``SecretItemID`` rejects in keys.
    package static let stagingPrefix = "\u{1}bv-staging\u{1}"
    package static let passcodeMarkerPrefix = "\u{1}bv-protected\u{1}"

    package func account(for id: SecretItemID, in slot: Slot) -> String {
        switch slot {
        case .primary, .fileBasedKeychain: id.key
        case .staging: Self.stagingPrefix + id.key
        case .passcodeMarker: Self.passcodeMarkerPrefix + id.key
        }
    }

    /// `.passcodeRemoved` when the key's protected item is gone and its marker is still there.
    public func vanishedItemReason(_ id: SecretItemID) -> VaultInvalidation? {
        let marker = try? Self.serialised { try attributes(id, in: .passcodeMarker) }
        return marker.flatMap { $0 } == nil ? nil : .passcodeRemoved
    }

    // MARK: Queries (pure; the tests assert them exactly)

    /// The attributes that name one item, for copy / update / delete.
    package func identityQuery(_ id: SecretItemID, in slot: Slot, context: KeychainContextReference) -> KeychainQuery {
        var query = locationQuery(service: id.service, in: slot)
        query[.account] = .text(account(for: id, in: slot))
        query[.authenticationContext] = .context(context)
        return query
    }

    /// Class, service and which keychain; shared by every query.
    package func locationQuery(service: String, in slot: Slot) -> KeychainQuery {
        var query = KeychainQuery([.itemClass: .genericPassword, .service: .text(service)])
        // 0.30 wrote neither an access group nor synchronizable items, and only into the file-based
        // keychain on macOS: its slot is queried exactly as 0.30 wrote it.
        guard slot != .fileBasedKeychain else { return query }
        if let accessGroup { query[.accessGroup] = .text(accessGroup) }
        if platform.usesDataProtectionKeychain { query[.useDataProtectionKeychain] = .bool(true) }
        // Plain items may be synchronizable and protected ones are not: match both.
        if synchronizable { query[.synchronizable] = .synchronizableAny }
        return query
    }

    /// The attributes of one item, never its data: safe without authentication.
    package func attributesQuery(_ id: SecretItemID, in slot: Slot) -> KeychainQuery {
        identityQuery(id, in: slot, context: .nonInteractive)
            .merging([.returnAttributes: .bool(true), .matchLimit: .matchOne])
    }

    /// The data of one item.
    package func dataQuery(_ id: SecretItemID, in slot: Slot, context: KeychainContextReference) -> KeychainQuery {
        identityQuery(id, in: slot, context: context).merging([.returnData: .bool(true), .matchLimit: .matchOne])
    }

    /// The accounts of every item of a service.
    package func listQuery(service: String, in slot: Slot) -> KeychainQuery {
        locationQuery(service: service, in: slot).merging([
            .returnAttributes: .bool(true), .matchLimit: .matchAll, .authenticationContext: .context(.nonInteractive),
        ])
    }

    /// A complete new item for `SecItemAdd`.
    package func addQuery(
        _ item: StoredItem, payload: SecretBytes, for id: SecretItemID, in slot: Slot, context: KeychainContextReference
    ) -> KeychainQuery {
        var query = KeychainQuery([.itemClass: .genericPassword, .service: .text(id.service)])
        query[.account] = .text(account(for: id, in: slot))
        if let accessGroup { query[.accessGroup] = .text(accessGroup) }
        if platform.usesDataProtectionKeychain { query[.useDataProtectionKeychain] = .bool(true) }
        query[.generic] = .textData(item.header.attributeValue)
        query[.valueData] = .secret(payload)
        switch item.header.protection {
        case .none:
            query[.accessible] = .accessibility(accessibility)
            if synchronizable { query[.synchronizable] = .bool(true) }
        case .protected(let policy):
            // kSecAttrAccessControl carries the accessibility itself; kSecAttrAccessible beside it is errSecParam.
            query[.accessControl] = .accessControl(.whenPasscodeSetThisDeviceOnly, KeychainAccessControlFlags(policy))
            if case .evaluated = context { query[.authenticationContext] = .context(context) }
        }
        return query
    }

    /// The marker of a protected item: plain, this device only (never synced, so it never outlives the
    /// item on another device), readable after the first unlock like the items it stands for.
    package func passcodeMarkerAddQuery(for id: SecretItemID) -> KeychainQuery {
        var query = KeychainQuery([.itemClass: .genericPassword, .service: .text(id.service)])
        query[.account] = .text(account(for: id, in: .passcodeMarker))
        if let accessGroup { query[.accessGroup] = .text(accessGroup) }
        if platform.usesDataProtectionKeychain { query[.useDataProtectionKeychain] = .bool(true) }
        query[.accessible] = .accessibility(.afterFirstUnlockThisDeviceOnly)
        return query
    }

    /// What an in-place update changes: the value and the header, never the access control.
    package func contentUpdate(_ item: StoredItem, payload: SecretBytes) -> KeychainQuery {
        KeychainQuery([.valueData: .secret(payload), .generic: .textData(item.header.attributeValue)])
    }

    // MARK: Serialised operations

    private static let lock = LockedValue(())

    private static func serialised<Result>(_ body: () throws -> Result) throws -> Result {
        try lock.withLock { _ in try body() }
    }

    private func contextReference(_ authorization: Authorization?) -> KeychainContextReference {
        if let authorization, authorization.isValid,
            let context = authorization.context as? any KeychainAuthenticationContext
        {
            return .evaluated(context)
        }
        return .nonInteractive
    }

    private func readSerialised(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        let context = contextReference(authorization)
        guard let (slot, found) = try locate(id, context: context) else { return nil }
        guard let generic = found.generic else {
            return try readLegacy(id, in: slot, authorization: authorization, context: context)
        }
        let header = try Self.header(fromGeneric: generic)
        switch header.protection {
        case .none:
            let payload = try readData(id, in: slot, context: .nonInteractive, operation: .plain)
            return payload.map { StoredItem(header: header, payload: $0) }
        case .protected(let policy):
            let compared = comparableHeader(header)
            guard let authorization else { return StoredItem(header: compared, payload: nil) }
            let operation = KeychainStatus.Operation.protected(policy, evaluatedContext: context != .nonInteractive)
            let payload = try readData(id, in: slot, context: context, operation: operation)
            if payload != nil, compared != header, authorization.enrollment == compared.enrollment {
                rebind(id, in: slot, to: compared, context: context)
            }
            return payload.map { StoredItem(header: compared, payload: $0) }
        }
    }

    /// The header with its enrollment binding as the vault should compare it (``EnrollmentBinding``): a
    /// binding stored from `evaluatedPolicyDomainState` is checked against that source and, when it
    /// still matches, read as the current `domainState` binding, so an OS upgrade is not an enrollment
    /// change. A binding from the newest source needs no probe.
    private func comparableHeader(_ header: ItemHeader) -> ItemHeader {
        guard header.protection.policy?.bindsEnrollment == true, let stored = header.enrollment,
            EnrollmentBinding.parse(stored).source != .biometryStateHash
        else { return header }
        var compared = header
        compared.enrollment = EnrollmentBinding.comparable(stored: stored, now: client.currentEnrollmentReadings())
        return compared
    }

    /// After an authenticated read of an item whose binding came from an older source: stores the current
    /// binding, so later reads compare it directly. Best effort: on failure the next read translates again.
    private func rebind(_ id: SecretItemID, in slot: Slot, to header: ItemHeader, context: KeychainContextReference) {
        guard case .evaluated = context else { return }
        _ = client.update(
            identityQuery(id, in: slot, context: context), KeychainQuery([.generic: .textData(header.attributeValue)]))
    }

    /// A 0.30 item: no header. Its data, read without interaction, tells plain from biometric: the
    /// attributes were readable, so the device's keychain is unlocked and only an access control can
    /// refuse the data.
    private func readLegacy(
        _ id: SecretItemID, in slot: Slot, authorization: Authorization?, context: KeychainContextReference
    ) throws -> StoredItem? {
        let probe = client.copyMatching(dataQuery(id, in: slot, context: .nonInteractive))
        switch probe.status {
        case KeychainStatus.success:
            guard let payload = probe.items.first?.value else { throw Self.missingData }
            return StoredItem(header: Self.legacyHeader(.none, enrollment: nil), payload: payload)
        case KeychainStatus.interactionNotAllowed, KeychainStatus.authFailed:
            // 0.30 protected every biometric item with .biometryCurrentSet. It recorded no enrollment; the
            // OS still enforces its own, so the item is taken as bound to the current one.
            let header = Self.legacyHeader(
                .protected(.biometryCurrentSet), enrollment: authorization?.enrollment ?? client.currentEnrollmentReadings().current)
            guard authorization != nil else { return StoredItem(header: header, payload: nil) }
            let operation = KeychainStatus.Operation.protected(
                .biometryCurrentSet, evaluatedContext: context != .nonInteractive)
            let payload = try readData(id, in: slot, context: context, operation: operation)
            return payload.map { StoredItem(header: header, payload: $0) }
        case KeychainStatus.itemNotFound:
            return nil
        default:
            throw KeychainStatus.error(probe.status, during: .plain)
        }
    }

    private func readData(
        _ id: SecretItemID, in slot: Slot, context: KeychainContextReference, operation: KeychainStatus.Operation
    ) throws -> SecretBytes? {
        let result = client.copyMatching(dataQuery(id, in: slot, context: context))
        switch result.status {
        case KeychainStatus.success:
            guard let value = result.items.first?.value else { throw Self.missingData }
            return value
        case KeychainStatus.itemNotFound:
            return nil  // deleted between the two queries
        default:
            throw KeychainStatus.error(result.status, during: operation)
        }
    }

    /// Finds the item: under its key, else as the staged half of an interrupted replace (whose rename is
    /// finished here when the context allows it), else (macOS) as a 0.30 item in the file-based keychain.
    private func locate(_ id: SecretItemID, context: KeychainContextReference) throws -> (Slot, KeychainFoundItem)? {
        if let found = try attributes(id, in: .primary) { return (.primary, found) }
        if let staged = try attributes(id, in: .staging) {
            let renamed = client.update(identityQuery(id, in: .staging, context: context), KeychainQuery([.account: .text(id.key)]))
            // If the rename needs authentication it fails here without prompting; the staged item is
            // served as the item until an authorised access finishes the rename.
            return renamed == KeychainStatus.success ? (.primary, staged) : (.staging, staged)
        }
        if platform.hasFileBasedKeychain, let legacy = try attributes(id, in: .fileBasedKeychain) {
            return (.fileBasedKeychain, legacy)
        }
        return nil
    }

    private func attributes(_ id: SecretItemID, in slot: Slot) throws -> KeychainFoundItem? {
        let result = client.copyMatching(attributesQuery(id, in: slot))
        switch result.status {
        case KeychainStatus.success: return result.items.first ?? KeychainFoundItem()
        case KeychainStatus.itemNotFound: return nil
        default: throw KeychainStatus.error(result.status, during: .plain)
        }
    }

    private func writeSerialised(
        _ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?
    ) throws {
        guard let payload = item.payload else {
            throw VaultError(.invalidVault, underlying: .message("write without payload"))
        }
        let context = contextReference(authorization)
        let operation = Self.operation(for: item.header, context: context)
        if condition != .anything, condition != .absent {
            // An interrupted replace may have left the item under the staging account only: it counts.
            try condition.check(readSerialised(id, authorization: nil)?.header)
        }
        // Add first: a new item costs one call, and nothing is read (or prompted for) before it.
        let added = client.add(addQuery(item, payload: payload, for: id, in: .primary, context: context))
        if added == KeychainStatus.success {
            discardLeftovers(of: id, context: context)
            recordProtection(of: item.header, for: id)
            return
        }
        guard added == KeychainStatus.duplicateItem else { throw KeychainStatus.error(added, during: operation) }

        let existing = try attributes(id, in: .primary)
        let existingHeader = try existing?.generic.map(Self.header(fromGeneric:))
        if condition == .absent {
            throw condition.mismatch(current: existingHeader ?? Self.legacyHeader(.none, enrollment: nil))
        }
        if let existingHeader, existingHeader.protection == item.header.protection {
            let updated = client.update(
                identityQuery(id, in: .primary, context: context), contentUpdate(item, payload: payload))
            guard updated == KeychainStatus.success else { throw KeychainStatus.error(updated, during: operation) }
            // A protected item written by an earlier version has no marker yet.
            if item.header.protection != .none { recordProtection(of: item.header, for: id) }
            return
        }
        try replaceThroughStaging(item, payload: payload, for: id, context: context, operation: operation)
        recordProtection(of: item.header, for: id)
    }

    /// After a write: a protected item gets its marker, a plain one loses it. Added only once the item is
    /// complete, so a marker never stands for an item that was not written; best effort (without it a
    /// vanished item without a marker reads as plain empty).
    private func recordProtection(of header: ItemHeader, for id: SecretItemID) {
        switch header.protection {
        case .none: _ = client.delete(identityQuery(id, in: .passcodeMarker, context: .nonInteractive))
        case .protected: _ = client.add(passcodeMarkerAddQuery(for: id))
        }
    }

    /// Changes the access control: new item complete first, then the old one goes, then the rename.
    private func replaceThroughStaging(
        _ item: StoredItem, payload: SecretBytes, for id: SecretItemID, context: KeychainContextReference,
        operation: KeychainStatus.Operation
    ) throws {
        // A staging item left by an interrupted replace is not the live copy here (the primary exists).
        let cleared = client.delete(identityQuery(id, in: .staging, context: context))
        guard cleared == KeychainStatus.success || cleared == KeychainStatus.itemNotFound else {
            throw KeychainStatus.error(cleared, during: .plain)
        }
        let staged = client.add(addQuery(item, payload: payload, for: id, in: .staging, context: context))
        guard staged == KeychainStatus.success else { throw KeychainStatus.error(staged, during: operation) }
        let removed = client.delete(identityQuery(id, in: .primary, context: context))
        guard removed == KeychainStatus.success || removed == KeychainStatus.itemNotFound else {
            // The old item is still complete: withdraw the staged one and report.
            _ = client.delete(identityQuery(id, in: .staging, context: context))
            throw KeychainStatus.error(removed, during: .plain)
        }
        let renamed = client.update(
            identityQuery(id, in: .staging, context: context), KeychainQuery([.account: .text(id.key)]))
        // On failure the staged item is complete and `read` serves it (and retries the rename).
        guard renamed == KeychainStatus.success else { throw KeychainStatus.error(renamed, during: operation) }
        discardFileBasedItem(of: id)
    }

    /// After a successful add under the key: a staged item from an interrupted replace is older than
    /// what was just written, and a 0.30 item on macOS has now been moved. Failures leave only shadowed
    /// copies behind (`read` prefers the primary item), so they are not errors of this write.
    private func discardLeftovers(of id: SecretItemID, context: KeychainContextReference) {
        _ = client.delete(identityQuery(id, in: .staging, context: context))
        discardFileBasedItem(of: id)
    }

    private func discardFileBasedItem(of id: SecretItemID) {
        guard platform.hasFileBasedKeychain else { return }
        _ = client.delete(identityQuery(id, in: .fileBasedKeychain, context: .nonInteractive))
    }

    /// Deletes the marker first (a failure after it loses only the reason a vanished item would be
    /// given, never reports a deleted item as destroyed), then the places a read falls back to, so a
    /// failure never resurrects an older copy.
    private func deleteSerialised(_ id: SecretItemID) throws {
        var slots: [Slot] = [.passcodeMarker]
        if platform.hasFileBasedKeychain { slots.append(.fileBasedKeychain) }
        slots += [.staging, .primary]
        for slot in slots {
            let status = client.delete(identityQuery(id, in: slot, context: .nonInteractive))
            guard status == KeychainStatus.success || status == KeychainStatus.itemNotFound else {
                throw KeychainStatus.error(status, during: .plain)
            }
        }
    }

    private func keysSerialised(service: String) throws -> [String] {
        var slots: [Slot] = [.primary]
        if platform.hasFileBasedKeychain { slots.append(.fileBasedKeychain) }
        var keys = Set<String>()
        for slot in slots {
            let result = client.copyMatching(listQuery(service: service, in: slot))
            switch result.status {
            case KeychainStatus.success:
                for account in result.items.compactMap(\.account) where !account.hasPrefix(Self.passcodeMarkerPrefix) {
                    // A staged item is listed under its key: it is the item if its replace was interrupted.
                    keys.insert(account.hasPrefix(Self.stagingPrefix) ? String(account.dropFirst(Self.stagingPrefix.count)) : account)
                }
            case KeychainStatus.itemNotFound:
                continue
            default:
                throw KeychainStatus.error(result.status, during: .plain)
            }
        }
        return keys.sorted()
    }

    // MARK: Headers

    package static func header(fromGeneric generic: Data) throws -> ItemHeader {
        guard let text = String(data: generic, encoding: .utf8) else {
            throw VaultError(.corruptedItem, underlying: .message("item header is not UTF-8"))
        }
        return try ItemHeader(attributeValue: text)
    }

    /// The header a 0.30 item is read with: format version 0, so the next write moves it.
    package static func legacyHeader(_ protection: ItemProtection, enrollment: EnrollmentFingerprint?) -> ItemHeader {
        var header = ItemHeader(protection: protection, enrollment: enrollment)
        header.formatVersion = 0
        return header
    }

    private static func operation(for header: ItemHeader, context: KeychainContextReference) -> KeychainStatus.Operation {
        switch header.protection {
        case .none: .plain
        case .protected(let policy): .protected(policy, evaluatedContext: context != .nonInteractive)
        }
    }

    private static let missingData = VaultError(
        .corruptedItem, underlying: .message("the keychain returned an item without data"))
}
#endif
