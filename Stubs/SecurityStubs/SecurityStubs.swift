// API-SHAPE STUBS of Apple's Security framework, type-check only (see CoreFoundationStubs.swift).
// Only what BiometricsVaultApple uses, declared as Apple's SDK imports it into Swift. Source of each
// declaration: the Swift declaration block of its page under developer.apple.com/documentation/security/.
// A wrong signature here silently blesses wrong code: review changes like production code.
// Availability: the SDK's introduction versions for what the backend uses (see LocalAuthenticationStubs.swift
// for how the stub check enforces the marks above the deployment floor).
@_exported import BiometricsVaultCoreFoundationStubs
import Foundation

// MARK: SecItem (security/secitemadd(_:_:), secitemcopymatching(_:_:), secitemupdate(_:_:), secitemdelete(_:))

public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    _appleSDKStub()
}
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    _appleSDKStub()
}
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { _appleSDKStub() }
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { _appleSDKStub() }
/// security/seccopyerrormessagestring(_:_:).
@available(iOS 11.3, macOS 10.3, tvOS 11.3, watchOS 4.3, *)
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    _appleSDKStub()
}

// MARK: Access control (security/secaccesscontrolcreatewithflags(_:_:_:_:), secaccesscontrolcreateflags)

/// Apple: an opaque CF class.
public final class SecAccessControl: Hashable {
    private init() {}
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Apple: `struct SecAccessControlCreateFlags: OptionSet`, members imported as `static var … { get }`.
/// Raw values (1, 2, 8, 16, 32, 1<<14, 1<<15, 1<<30, 1<<31) as listed by the .NET Security binding and
/// security-rs; only the names and types matter for type-checking.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    public static var userPresence: SecAccessControlCreateFlags { .init(rawValue: 1 << 0) }
    @available(iOS 11.3, macOS 10.13.4, *)
    public static var biometryAny: SecAccessControlCreateFlags { .init(rawValue: 1 << 1) }
    @available(*, deprecated, renamed: "biometryAny")
    public static var touchIDAny: SecAccessControlCreateFlags { .init(rawValue: 1 << 1) }
    @available(iOS 11.3, macOS 10.13.4, *)
    public static var biometryCurrentSet: SecAccessControlCreateFlags { .init(rawValue: 1 << 3) }
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static var touchIDCurrentSet: SecAccessControlCreateFlags { .init(rawValue: 1 << 3) }
    public static var devicePasscode: SecAccessControlCreateFlags { .init(rawValue: 1 << 4) }
    @available(*, deprecated, renamed: "companion")
    public static var watch: SecAccessControlCreateFlags { .init(rawValue: 1 << 5) }
    @available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public static var companion: SecAccessControlCreateFlags { .init(rawValue: 1 << 5) }
    public static var or: SecAccessControlCreateFlags { .init(rawValue: 1 << 14) }
    public static var and: SecAccessControlCreateFlags { .init(rawValue: 1 << 15) }
    public static var privateKeyUsage: SecAccessControlCreateFlags { .init(rawValue: 1 << 30) }
    public static var applicationPassword: SecAccessControlCreateFlags { .init(rawValue: 1 << 31) }
}

@available(iOS 8.0, macOS 10.10, *)
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? { _appleSDKStub() }

// MARK: Item attribute keys and values (security/ksecclass and siblings: `let kSecX: CFString`)
// The values are placeholders (the names); only the types matter.

nonisolated(unsafe) public let kSecClass: CFString = "kSecClass"
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "kSecClassGenericPassword"
nonisolated(unsafe) public let kSecAttrService: CFString = "kSecAttrService"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "kSecAttrAccount"
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "kSecAttrGeneric"
nonisolated(unsafe) public let kSecAttrLabel: CFString = "kSecAttrLabel"
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "kSecAttrAccessGroup"
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "kSecAttrAccessible"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "kSecAttrAccessibleWhenUnlocked"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "kSecAttrAccessibleAfterFirstUnlock"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString =
    "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString =
    "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString =
    "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"
@available(*, deprecated, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock")
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "kSecAttrAccessibleAlways"
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "kSecAttrAccessControl"
/// security/ksecattrsynchronizable: the value is a CFBoolean, or `kSecAttrSynchronizableAny` in queries.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "kSecAttrSynchronizable"
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "kSecAttrSynchronizableAny"
nonisolated(unsafe) public let kSecValueData: CFString = "kSecValueData"
nonisolated(unsafe) public let kSecReturnData: CFString = "kSecReturnData"
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "kSecReturnAttributes"
nonisolated(unsafe) public let kSecMatchLimit: CFString = "kSecMatchLimit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "kSecMatchLimitOne"
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "kSecMatchLimitAll"
/// security/ksecuseauthenticationcontext: the value is an `LAContext`.
@available(iOS 9.0, macOS 10.11, *)
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "kSecUseAuthenticationContext"
/// security/ksecuseauthenticationui: not deprecated; `…UISkip` is for SecItemCopyMatching only.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "kSecUseAuthenticationUI"
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "kSecUseAuthenticationUISkip"
@available(*, deprecated, message: "Instead of kSecUseAuthenticationUI, use kSecUseAuthenticationContext and set LAContext.interactionNotAllowed property")
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "kSecUseAuthenticationUIFail"
@available(*, deprecated, message: "Instead of kSecUseAuthenticationUI, use kSecUseAuthenticationContext and set LAContext.interactionNotAllowed property")
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "kSecUseAuthenticationUIAllow"
@available(*, deprecated, message: "Use kSecUseAuthenticationContext and set LAContext.localizedReason property")
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "kSecUseOperationPrompt"
/// security/ksecusedataprotectionkeychain.
@available(iOS 13.0, macOS 10.15, *)
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "kSecUseDataProtectionKeychain"

// MARK: Result codes (SecBase.h; imported as `var errSecX: OSStatus { get }`)

public var errSecSuccess: OSStatus { 0 }
public var errSecIO: OSStatus { -36 }
public var errSecParam: OSStatus { -50 }
public var errSecAllocate: OSStatus { -108 }
public var errSecUserCanceled: OSStatus { -128 }
public var errSecNotAvailable: OSStatus { -25291 }
public var errSecReadOnly: OSStatus { -25292 }
public var errSecAuthFailed: OSStatus { -25293 }
public var errSecNoSuchKeychain: OSStatus { -25294 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }
public var errSecDataNotAvailable: OSStatus { -25316 }
public var errSecInDarkWake: OSStatus { -25320 }
public var errSecDecode: OSStatus { -26275 }
public var errSecMissingEntitlement: OSStatus { -34018 }
