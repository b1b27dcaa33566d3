#if canImport(Security) || APPLE_SDK_STUBS
// THE choke point of the Security framework: the only file that calls SecItemAdd, SecItemCopyMatching,
// SecItemUpdate, SecItemDelete and SecAccessControlCreateWithFlags. It translates the platform-neutral
// `KeychainQuery` into a `kSec…` dictionary and the results back; it decides nothing.
import BiometricsVaultCore
import Foundation

#if canImport(Security)
import Security
#elseif APPLE_SDK_STUBS
import BiometricsVaultSecurityStubs
#endif

/// The real Keychain behind ``KeychainClient``.
package struct SystemKeychainClient: KeychainClient {
    /// A fresh `LAContext` with `interactionNotAllowed = true`, where LocalAuthentication exists.
    let makeNonInteractiveContext: @Sendable () -> AnyObject?
    let enrollmentReadings: @Sendable () -> EnrollmentReadings

    package init(
        makeNonInteractiveContext: @escaping @Sendable () -> AnyObject?,
        currentEnrollmentReadings: @escaping @Sendable () -> EnrollmentReadings
    ) {
        assert(Self.sdkStatusCodesMatch(), "KeychainStatus disagrees with the SDK's errSec constants")
        self.makeNonInteractiveContext = makeNonInteractiveContext
        self.enrollmentReadings = currentEnrollmentReadings
    }

    package func add(_ attributes: KeychainQuery) -> Int32 {
        withDictionary(attributes) { SecItemAdd($0, nil) }
    }

    package func copyMatching(_ query: KeychainQuery) -> KeychainCopyResult {
        var result: CFTypeRef?
        let status = withDictionary(query) { SecItemCopyMatching($0, &result) }
        guard status == errSecSuccess else { return KeychainCopyResult(status: status) }
        return KeychainCopyResult(status: status, items: Self.items(from: result))
    }

    package func update(_ query: KeychainQuery, _ attributesToUpdate: KeychainQuery) -> Int32 {
        let changes: [CFString: Any]
        do { changes = try Self.dictionary(attributesToUpdate) } catch { return errSecParam }
        return withDictionary(query) { SecItemUpdate($0, changes as CFDictionary) }
    }

    package func delete(_ query: KeychainQuery) -> Int32 {
        withDictionary(query) { SecItemDelete($0) }
    }

    package func currentEnrollmentReadings() -> EnrollmentReadings { enrollmentReadings() }

    /// The access control of protected items (also evaluated by the authenticator for `.devicePasscode`).
    static func makeAccessControl(
        _ accessibility: KeychainAccessibility, _ flags: KeychainAccessControlFlags
    ) throws(VaultError) -> SecAccessControl {
        var error: Unmanaged<CFError>?
        guard
            let accessControl = SecAccessControlCreateWithFlags(
                kCFAllocatorDefault, protectionClass(accessibility), createFlags(flags), &error)
        else {
            let code = error.map { Int32(truncatingIfNeeded: ($0.takeRetainedValue() as any Error as NSError).code) } ?? errSecParam
            throw VaultError(.storeUnavailable, underlying: .osStatus(code))
        }
        return accessControl
    }

    /// Whether every `KeychainStatus` constant equals the SDK's `errSec…` constant of the same name.
    package static func sdkStatusCodesMatch() -> Bool {
        let pairs: [(OSStatus, Int32)] = [
            (errSecSuccess, KeychainStatus.success), (errSecIO, KeychainStatus.io),
            (errSecParam, KeychainStatus.param), (errSecAllocate, KeychainStatus.allocate),
            (errSecUserCanceled, KeychainStatus.userCanceled), (errSecNotAvailable, KeychainStatus.notAvailable),
            (errSecReadOnly, KeychainStatus.readOnly), (errSecAuthFailed, KeychainStatus.authFailed),
            (errSecNoSuchKeychain, KeychainStatus.noSuchKeychain), (errSecDuplicateItem, KeychainStatus.duplicateItem),
            (errSecItemNotFound, KeychainStatus.itemNotFound),
            (errSecInteractionNotAllowed, KeychainStatus.interactionNotAllowed),
            (errSecDataNotAvailable, KeychainStatus.dataNotAvailable), (errSecInDarkWake, KeychainStatus.inDarkWake),
            (errSecDecode, KeychainStatus.decode), (errSecMissingEntitlement, KeychainStatus.missingEntitlement),
        ]
        return pairs.allSatisfy { $0.0 == $0.1 }
    }

    // MARK: Translation

    /// Builds the dictionary and makes the call; an evaluated context is used under its own lock.
    private func withDictionary(_ query: KeychainQuery, _ call: (CFDictionary) -> OSStatus) -> OSStatus {
        var dictionary: [CFString: Any]
        do { dictionary = try Self.dictionary(query) } catch { return errSecParam }
        switch query.authenticationContext {
        case nil:
            return call(dictionary as CFDictionary)
        case .nonInteractive:
            if let context = makeNonInteractiveContext() { dictionary[kSecUseAuthenticationContext] = context }
            return call(dictionary as CFDictionary)
        case .evaluated(let context):
            return context.withKeychainContext { platformContext in
                dictionary[kSecUseAuthenticationContext] = platformContext
                return call(dictionary as CFDictionary)
            }
        }
    }

    /// Every key except the authentication context, which `withDictionary` adds.
    private static func dictionary(_ query: KeychainQuery) throws(VaultError) -> [CFString: Any] {
        var dictionary: [CFString: Any] = [:]
        for (key, value) in query.entries where key != .authenticationContext {
            dictionary[attributeKey(key)] = try attributeValue(value)
        }
        return dictionary
    }

    private static func attributeKey(_ key: KeychainQuery.Key) -> CFString {
        switch key {
        case .itemClass: kSecClass
        case .service: kSecAttrService
        case .account: kSecAttrAccount
        case .accessGroup: kSecAttrAccessGroup
        case .generic: kSecAttrGeneric
        case .valueData: kSecValueData
        case .accessible: kSecAttrAccessible
        case .accessControl: kSecAttrAccessControl
        case .synchronizable: kSecAttrSynchronizable
        case .useDataProtectionKeychain: kSecUseDataProtectionKeychain
        case .returnData: kSecReturnData
        case .returnAttributes: kSecReturnAttributes
        case .matchLimit: kSecMatchLimit
        case .authenticationContext: kSecUseAuthenticationContext
        }
    }

    private static func attributeValue(_ value: KeychainQuery.Value) throws(VaultError) -> Any {
        switch value {
        case .genericPassword: kSecClassGenericPassword
        case .text(let text): text
        case .textData(let text): Data(text.utf8)
        // The Keychain needs a Data; this copy is the one plaintext copy outside SecretBytes.
        case .secret(let bytes): bytes.withUnsafeBytes { Data($0) }
        case .bool(let flag): flag
        case .accessibility(let accessibility): protectionClass(accessibility)
        case .accessControl(let accessibility, let flags): try makeAccessControl(accessibility, flags)
        case .synchronizableAny: kSecAttrSynchronizableAny
        case .matchOne: kSecMatchLimitOne
        case .matchAll: kSecMatchLimitAll
        case .context: throw VaultError(.storeUnavailable, underlying: .message("context outside kSecUseAuthenticationContext"))
        }
    }

    private static func protectionClass(_ accessibility: KeychainAccessibility) -> CFString {
        switch accessibility {
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    private static func createFlags(_ flags: KeychainAccessControlFlags) -> SecAccessControlCreateFlags {
        var result: SecAccessControlCreateFlags = []
        if flags.contains(.userPresence) { result.insert(.userPresence) }
        if flags.contains(.biometryAny) { result.insert(.biometryAny) }
        if flags.contains(.biometryCurrentSet) { result.insert(.biometryCurrentSet) }
        if flags.contains(.devicePasscode) { result.insert(.devicePasscode) }
        return result
    }

    /// `kSecReturnData` alone yields a Data; with `kSecReturnAttributes` a dictionary, or an array of
    /// them with `kSecMatchLimitAll`.
    private static func items(from result: CFTypeRef?) -> [KeychainFoundItem] {
        if let data = result as? Data { return [KeychainFoundItem(value: SecretBytes(data))] }
        if let attributes = result as? [String: Any] { return [item(from: attributes)] }
        if let list = result as? [[String: Any]] { return list.map(item(from:)) }
        return []
    }

    private static func item(from attributes: [String: Any]) -> KeychainFoundItem {
        KeychainFoundItem(
            account: attributes[kSecAttrAccount as String] as? String,
            generic: attributes[kSecAttrGeneric as String] as? Data,
            value: (attributes[kSecValueData as String] as? Data).map { SecretBytes($0) })
    }
}
#endif
