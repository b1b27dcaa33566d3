#if canImport(Security) || APPLE_SDK_STUBS
// Platform-neutral model of the Keychain: what the store asks for, before it becomes a CFDictionary.
//
// The store builds `KeychainQuery` values and hands them to a `KeychainClient`. Only
// `SystemKeychainClient.swift` translates them into `kSec…` dictionaries and calls SecItem*, so the
// query-building logic can be tested on any platform with a fake client, and the Apple-facing
// translation is type-checked on Linux against the SDK stubs.
import BiometricsVaultCore
import Foundation

/// When a Keychain item's bytes can be read (`kSecAttrAccessible…`).
public enum KeychainAccessibility: String, Hashable, Sendable, CaseIterable {
    /// `kSecAttrAccessibleWhenUnlocked`.
    case whenUnlocked
    /// `kSecAttrAccessibleAfterFirstUnlock`: what BiometricsVault 0.30 used; readable in the background.
    case afterFirstUnlock
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`: every protected item uses this; removing the
    /// passcode destroys the item.
    case whenPasscodeSetThisDeviceOnly

    /// Whether items with this accessibility may sync through iCloud Keychain.
    public var allowsSynchronization: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock: true
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: false
        }
    }
}

/// The `SecAccessControlCreateFlags` a protected item gets, as a platform-neutral set.
package struct KeychainAccessControlFlags: OptionSet, Hashable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let userPresence = KeychainAccessControlFlags(rawValue: 1 << 0)
    package static let biometryAny = KeychainAccessControlFlags(rawValue: 1 << 1)
    package static let biometryCurrentSet = KeychainAccessControlFlags(rawValue: 1 << 2)
    package static let devicePasscode = KeychainAccessControlFlags(rawValue: 1 << 3)

    /// One flag per policy: each policy is exactly one Apple access-control constraint.
    package init(_ policy: ProtectionPolicy) {
        switch policy {
        case .biometryCurrentSet: self = .biometryCurrentSet
        case .biometryAny: self = .biometryAny
        case .userPresence: self = .userPresence
        case .devicePasscode: self = .devicePasscode
        }
    }
}

/// A context the Keychain can use for `kSecUseAuthenticationContext` (an evaluated `LAContext`).
///
/// Conformers serialise every use of their platform object: `withKeychainContext` runs `body` under the
/// same lock that guards evaluation and `invalidate()`. `body` must not keep the object.
package protocol KeychainAuthenticationContext: AuthorizationContext, AnyObject {
    func withKeychainContext<Result>(_ body: (AnyObject) throws -> Result) rethrows -> Result
}

/// Which `kSecUseAuthenticationContext` a query carries.
package enum KeychainContextReference: Sendable, Equatable, CustomStringConvertible {
    /// A fresh `LAContext` with `interactionNotAllowed = true`: the query fails instead of prompting.
    case nonInteractive
    /// The evaluated context of an `Authorization`: one unlock, one prompt.
    case evaluated(any KeychainAuthenticationContext)

    package static func == (lhs: KeychainContextReference, rhs: KeychainContextReference) -> Bool {
        switch (lhs, rhs) {
        case (.nonInteractive, .nonInteractive): true
        case (.evaluated(let left), .evaluated(let right)): left === right
        default: false
        }
    }

    package var description: String {
        switch self {
        case .nonInteractive: "nonInteractive"
        case .evaluated(let context): "evaluated(\(ObjectIdentifier(context)))"
        }
    }
}

/// A Keychain query or attribute set: `kSec…` keys and their values, without CF types.
package struct KeychainQuery: Equatable, Sendable, CustomStringConvertible {
    /// The `kSec…` key each case stands for is in its comment; `SystemKeychainClient` does the translation.
    package enum Key: String, Hashable, Sendable, CaseIterable, Comparable {
        case itemClass  // kSecClass
        case service  // kSecAttrService
        case account  // kSecAttrAccount
        case accessGroup  // kSecAttrAccessGroup
        case generic  // kSecAttrGeneric (our ItemHeader)
        case valueData  // kSecValueData (the credentials JSON)
        case accessible  // kSecAttrAccessible
        case accessControl  // kSecAttrAccessControl
        case synchronizable  // kSecAttrSynchronizable
        case useDataProtectionKeychain  // kSecUseDataProtectionKeychain
        case returnData  // kSecReturnData
        case returnAttributes  // kSecReturnAttributes
        case matchLimit  // kSecMatchLimit
        case authenticationContext  // kSecUseAuthenticationContext

        package static func < (lhs: Key, rhs: Key) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    package enum Value: Equatable, Sendable, CustomStringConvertible {
        /// kSecClassGenericPassword.
        case genericPassword
        case text(String)
        /// A `Data` attribute holding UTF-8 text (the header in kSecAttrGeneric).
        case textData(String)
        /// The secret value. Compared in constant time, printed redacted.
        case secret(SecretBytes)
        case bool(Bool)
        case accessibility(KeychainAccessibility)
        /// `SecAccessControlCreateWithFlags(kCFAllocatorDefault, accessibility, flags, nil)`.
        case accessControl(KeychainAccessibility, KeychainAccessControlFlags)
        /// kSecAttrSynchronizableAny (queries only).
        case synchronizableAny
        /// kSecMatchLimitOne.
        case matchOne
        /// kSecMatchLimitAll.
        case matchAll
        case context(KeychainContextReference)

        package var description: String {
            switch self {
            case .genericPassword: "genericPassword"
            case .text(let text): "\"\(text)\""
            case .textData(let text): "data(\"\(text)\")"
            case .secret(let bytes): bytes.description
            case .bool(let value): "\(value)"
            case .accessibility(let accessibility): "\(accessibility)"
            case .accessControl(let accessibility, let flags): "accessControl(\(accessibility), flags: \(flags.rawValue))"
            case .synchronizableAny: "synchronizableAny"
            case .matchOne: "matchOne"
            case .matchAll: "matchAll"
            case .context(let reference): "context(\(reference))"
            }
        }
    }

    package var entries: [Key: Value]

    package init(_ entries: [Key: Value] = [:]) { self.entries = entries }

    package subscript(key: Key) -> Value? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    package var authenticationContext: KeychainContextReference? {
        if case .context(let reference)? = entries[.authenticationContext] { return reference }
        return nil
    }

    package func merging(_ other: [Key: Value]) -> KeychainQuery {
        KeychainQuery(entries.merging(other) { _, new in new })
    }

    package var description: String {
        "[" + entries.keys.sorted().map { "\($0.rawValue): \(entries[$0]!)" }.joined(separator: ", ") + "]"
    }
}

/// One item as `SecItemCopyMatching` returned it.
package struct KeychainFoundItem: Equatable, Sendable {
    package var account: String?
    /// kSecAttrGeneric, when the item has one (0.30 items do not).
    package var generic: Data?
    package var value: SecretBytes?

    package init(account: String? = nil, generic: Data? = nil, value: SecretBytes? = nil) {
        self.account = account
        self.generic = generic
        self.value = value
    }
}

/// What `SecItemCopyMatching` reported.
package struct KeychainCopyResult: Equatable, Sendable {
    package var status: Int32
    package var items: [KeychainFoundItem]

    package init(status: Int32, items: [KeychainFoundItem] = []) {
        self.status = status
        self.items = items
    }
}

/// The four SecItem calls (plus the enrollment probe stored bindings are compared with), as the store uses them.
///
/// `SystemKeychainClient` is the real one and the only code that calls SecItem*; tests use fakes.
/// Statuses are `OSStatus` values.
package protocol KeychainClient: Sendable {
    func add(_ attributes: KeychainQuery) -> Int32
    func copyMatching(_ query: KeychainQuery) -> KeychainCopyResult
    func update(_ query: KeychainQuery, _ attributesToUpdate: KeychainQuery) -> Int32
    func delete(_ query: KeychainQuery) -> Int32
    /// The enrolled biometric set now, from every source LocalAuthentication offers (``EnrollmentReadings/none``
    /// without LocalAuthentication or enrollment): the binding of 0.30 items, which carry no header, and
    /// what a binding stored from another source is checked against.
    func currentEnrollmentReadings() -> EnrollmentReadings
}

/// What differs between Keychain implementations on Apple platforms.
public struct KeychainPlatform: Hashable, Sendable {
    /// macOS: set `kSecUseDataProtectionKeychain` (else queries go to the legacy file-based keychain).
    public var usesDataProtectionKeychain: Bool
    /// macOS: BiometricsVault 0.30 items live in the file-based keychain; look there too.
    public var hasFileBasedKeychain: Bool

    public init(usesDataProtectionKeychain: Bool, hasFileBasedKeychain: Bool) {
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
        self.hasFileBasedKeychain = hasFileBasedKeychain
    }

    /// macOS: the data protection keychain, plus the file-based one for 0.30 items.
    public static let macOS = KeychainPlatform(usesDataProtectionKeychain: true, hasFileBasedKeychain: true)
    /// iOS, iPadOS, Mac Catalyst, visionOS, tvOS, watchOS: one (data protection) keychain.
    public static let iOSFamily = KeychainPlatform(usesDataProtectionKeychain: false, hasFileBasedKeychain: false)
}
#endif
