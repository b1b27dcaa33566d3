// API-SHAPE STUBS of Apple's LocalAuthentication framework, type-check only (see CoreFoundationStubs.swift).
// Only what BiometricsVaultApple uses, declared as Apple's SDK imports it into Swift. Source of each
// declaration: the Swift declaration block of its page under developer.apple.com/documentation/localauthentication/.
//
// Deliberate choices (limits: Docs/Apple.md):
// - `LAContext` is NOT Sendable, and the reply closures are `@Sendable`, as the current SDK docs show.
// - Availability is the SDK's (iOS 18 / macOS 15 SDK), from each page's metadata, in the short form
//   `@available(<platform> <version>, …, *)`; the tvOS unavailability mark stands for API_UNAVAILABLE(tvos). Linux ignores platform availability, so scripts/extra-tests/20-apple-stubs.sh
//   rewrites the marks above the package's deployment floor into custom availability domains and
//   type-checks the backend again: a newer API outside a matching `if #available` fails there.
// - `evaluatedPolicyDomainState` is deprecated from iOS 18 / macOS 15 / visionOS 2, above our floors,
//   where Swift does not warn; the long-form mark records it and the availability check ignores it.
@_exported import BiometricsVaultCoreFoundationStubs
import BiometricsVaultSecurityStubs  // SecAccessControl; deliberately not re-exported
import Foundation

/// localauthentication/lapolicy (raw values as listed by the .NET binding and tid-rs).
// `@unchecked Sendable` copies how the SDK imports this NS_ENUM; a raw-value enum holds no state to race on.
@available(iOS 8.0, macOS 10.10, visionOS 1.0, *)
@available(tvOS, unavailable)
public enum LAPolicy: Int, @unchecked Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
    case deviceOwnerAuthenticationWithCompanion = 3
    case deviceOwnerAuthenticationWithBiometricsOrCompanion = 4
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// localauthentication/labiometrytype.
@available(iOS 11.0, macOS 10.13.2, visionOS 1.0, *)
@available(tvOS, unavailable)
public enum LABiometryType: Int, @unchecked Sendable {
    case none = 0
    case touchID = 1
    @available(iOS 11.0, macOS 10.15, visionOS 1.0, *)
    case faceID = 2
    @available(iOS 17.0, macOS 14.0, visionOS 1.0, *)
    case opticID = 4
}

/// localauthentication/laaccesscontroloperation.
@available(iOS 9.0, macOS 10.11, visionOS 1.0, *)
@available(tvOS, unavailable)
public enum LAAccessControlOperation: Int, @unchecked Sendable {
    case createItem = 0
    case useItem = 1
    case createKey = 2
    case useKeySign = 3
    case useKeyDecrypt = 4
    case useKeyKeyExchange = 5
}

/// Apple: `let LAErrorDomain: String`.
public let LAErrorDomain: String = "com.apple.LocalAuthentication"

/// localauthentication/laerror-swift.struct. A look-alike: Apple's bridging machinery (`_BridgedStoredNSError`)
/// cannot be reproduced on Linux, but `catch LAError.userCancel`, `catch let e as LAError { e.code }` and
/// `errorCode` type-check the same way.
public struct LAError: CustomNSError, Hashable, @unchecked Sendable {
    public enum Code: Int, @unchecked Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case companionNotAvailable = -11
        case biometryNotPaired = -12
        case biometryDisconnected = -13
        case invalidDimensions = -14
        case notInteractive = -1004
        @available(*, deprecated, renamed: "biometryNotAvailable")
        public static var touchIDNotAvailable: Code { .biometryNotAvailable }
        @available(*, deprecated, renamed: "biometryNotEnrolled")
        public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
        @available(*, deprecated, renamed: "biometryLockout")
        public static var touchIDLockout: Code { .biometryLockout }
    }

    public let code: Code
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    public static func == (lhs: LAError, rhs: LAError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var authenticationFailed: Code { .authenticationFailed }
    public static var userCancel: Code { .userCancel }
    public static var userFallback: Code { .userFallback }
    public static var systemCancel: Code { .systemCancel }
    public static var passcodeNotSet: Code { .passcodeNotSet }
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    public static var biometryLockout: Code { .biometryLockout }
    public static var appCancel: Code { .appCancel }
    public static var invalidContext: Code { .invalidContext }
    public static var companionNotAvailable: Code { .companionNotAvailable }
    public static var biometryNotPaired: Code { .biometryNotPaired }
    public static var biometryDisconnected: Code { .biometryDisconnected }
    public static var invalidDimensions: Code { .invalidDimensions }
    public static var notInteractive: Code { .notInteractive }
}

/// Makes `catch LAError.userCancel { … }` type-check.
public func ~= (code: LAError.Code, error: any Error) -> Bool { (error as? LAError)?.code == code }

/// localauthentication/ladomainstatebiometry.
@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
@available(tvOS, unavailable)
open class LADomainStateBiometry: NSObject {
    open var biometryType: LABiometryType { _appleSDKStub() }
    open var stateHash: Data? { _appleSDKStub() }
}

/// localauthentication/ladomainstate.
@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
@available(tvOS, unavailable)
open class LADomainState: NSObject {
    open var biometry: LADomainStateBiometry { _appleSDKStub() }
    open var stateHash: Data? { _appleSDKStub() }
}

/// localauthentication/lacontext. Deliberately not Sendable.
@available(iOS 8.0, macOS 10.10, visionOS 1.0, *)
@available(tvOS, unavailable)
open class LAContext: NSObject {
    public override init() { super.init() }

    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool { _appleSDKStub() }

    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) { _appleSDKStub() }
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool { _appleSDKStub() }

    @available(iOS 9.0, macOS 10.11, visionOS 1.0, *)
    open func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
        reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) { _appleSDKStub() }
    @available(iOS 9.0, macOS 10.11, visionOS 1.0, *)
    open func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String
    ) async throws -> Bool { _appleSDKStub() }

    @available(iOS 9.0, macOS 10.11, visionOS 1.0, *)
    open func invalidate() { _appleSDKStub() }

    @available(iOS 11.0, macOS 10.13, visionOS 1.0, *)
    open var localizedReason: String { get { _appleSDKStub() } set { _appleSDKStub() } }
    open var localizedFallbackTitle: String? { get { _appleSDKStub() } set { _appleSDKStub() } }
    @available(iOS 10.0, macOS 10.12, visionOS 1.0, *)
    open var localizedCancelTitle: String? { get { _appleSDKStub() } set { _appleSDKStub() } }
    @available(iOS 9.0, macOS 10.12, visionOS 1.0, *)
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { _appleSDKStub() }
        set { _appleSDKStub() }
    }
    @available(iOS 11.0, macOS 10.13, visionOS 1.0, *)
    open var interactionNotAllowed: Bool { get { _appleSDKStub() } set { _appleSDKStub() } }
    /// Set only after `canEvaluatePolicy(_:error:)` was called. visionOS 1.0 in the released iOS 18 SDK
    /// (early Xcode 16 betas said visionOS 2.0; Apple corrected it, developer forums thread 756603).
    @available(iOS 11.0, macOS 10.13.2, visionOS 1.0, *)
    open var biometryType: LABiometryType { _appleSDKStub() }
    /// Superseded by `domainState` (see the header note).
    @available(iOS, introduced: 9.0, deprecated: 18.0, renamed: "domainState")
    @available(macOS, introduced: 10.11, deprecated: 15.0, renamed: "domainState")
    @available(visionOS, introduced: 1.0, deprecated: 2.0, renamed: "domainState")
    open var evaluatedPolicyDomainState: Data? { _appleSDKStub() }
    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    open var domainState: LADomainState { _appleSDKStub() }
}
