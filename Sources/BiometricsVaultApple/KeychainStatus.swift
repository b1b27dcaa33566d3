#if canImport(Security) || APPLE_SDK_STUBS
// Every OSStatus the Keychain store can see, mapped to `VaultError` in this one place.
import BiometricsVaultCore

/// `OSStatus` values of the Security framework (SecBase.h). `SystemKeychainClient.sdkStatusCodesMatch()`
/// compares them with the SDK's `errSec…` constants.
package enum KeychainStatus {
    package static let success: Int32 = 0
    package static let io: Int32 = -36
    package static let param: Int32 = -50
    package static let allocate: Int32 = -108
    package static let userCanceled: Int32 = -128
    package static let notAvailable: Int32 = -25291
    package static let readOnly: Int32 = -25292
    package static let authFailed: Int32 = -25293
    package static let noSuchKeychain: Int32 = -25294
    package static let duplicateItem: Int32 = -25299
    package static let itemNotFound: Int32 = -25300
    package static let interactionNotAllowed: Int32 = -25308
    package static let dataNotAvailable: Int32 = -25316
    package static let inDarkWake: Int32 = -25320
    package static let decode: Int32 = -26275
    package static let missingEntitlement: Int32 = -34018

    /// What the failed call touched, which decides what some statuses mean.
    package enum Operation: Hashable, Sendable {
        /// Attributes, plain items, listing, deleting: no access control involved.
        case plain
        /// The data of an item behind an access control, with an evaluated context or without one.
        case protected(ProtectionPolicy, evaluatedContext: Bool)
    }

    /// The code for each status, whatever the operation (see ``error(_:during:)`` for the exceptions).
    package static let codes: [Int32: VaultError.Code] = [
        itemNotFound: .itemNotFound,
        // Handled by the store (add, then update); seen here only if another writer raced us twice.
        duplicateItem: .storeUnavailable,
        authFailed: .authenticationFailed,
        interactionNotAllowed: .interactionNotAllowed,
        userCanceled: .userCancel,
        // A query the Keychain rejects: a bug or an unsupported combination on this OS, not the user's fault.
        param: .storeUnavailable,
        // The app lacks the keychain-access-groups entitlement (unsigned test host, wrong access group).
        missingEntitlement: .storeUnavailable,
        notAvailable: .storeUnavailable,
        noSuchKeychain: .storeUnavailable,
        readOnly: .storeUnavailable,
        io: .storeUnavailable,
        allocate: .storeUnavailable,
        // Protected data is not available yet (before first unlock) or the Mac is in dark wake: retry later.
        dataNotAvailable: .storeLocked,
        inDarkWake: .storeLocked,
        decode: .corruptedItem,
    ]

    /// Maps a failed status to `VaultError`, keeping the status as `.osStatus`.
    ///
    /// Exceptions to ``codes``:
    /// - `errSecInteractionNotAllowed` outside access control means the device's keychain is locked
    ///   (before first unlock, or `whenUnlocked` items on a locked device): `storeLocked`.
    /// - `errSecAuthFailed` for a `.biometryCurrentSet` item read with a successfully evaluated context
    ///   means the item's access control no longer accepts the enrolled biometrics: `biometryChanged`.
    package static func error(_ status: Int32, during operation: Operation) -> VaultError {
        let underlying = VaultError.Underlying.osStatus(status)
        switch (status, operation) {
        case (interactionNotAllowed, .plain):
            return VaultError(.storeLocked, underlying: underlying)
        case (authFailed, .protected(let policy, evaluatedContext: true)) where policy.bindsEnrollment:
            return VaultError(.biometryChanged, underlying: underlying)
        default:
            return VaultError(codes[status] ?? .storeUnavailable, underlying: underlying)
        }
    }
}
#endif
