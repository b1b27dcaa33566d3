#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What an app can show its users. `description` stays the developer form (code and platform cause);
// these texts are plain sentences built only from fixed strings and the biometry's name, so they never
// carry credential bytes, keys or platform messages.

extension VaultError: LocalizedError {
    /// What happened, in words a user understands ("Biometric unlock is locked after too many attempts.").
    /// Names the biometry generically; ``userMessage(biometryType:)`` names Face ID, Touch ID, ...
    public var errorDescription: String? { userMessage(biometryType: nil).description }

    /// What the user can do about it, when there is something.
    public var recoverySuggestion: String? { userMessage(biometryType: nil).recoverySuggestion }

    /// The user-facing texts, naming the device's biometry when given (`configuration.authenticator.biometryType`).
    public func userMessage(biometryType: BiometryType?) -> VaultUserMessage {
        VaultUserMessage(code: code, biometry: VaultUserMessage.name(of: biometryType))
    }
}

/// A ``VaultError`` in plain user words: what happened, and what the user can do. English; apps that
/// localise switch on ``VaultError/code`` instead.
public struct VaultUserMessage: Hashable, Sendable {
    /// What happened.
    public let description: String
    /// What the user can do, if anything.
    public let recoverySuggestion: String?

    init(code: VaultError.Code, biometry: String) {
        let texts = Self.texts[code] ?? Self.unknown
        description = Self.naming(biometry, in: texts.description)
        recoverySuggestion = texts.recoverySuggestion.map { Self.naming(biometry, in: $0) }
    }

    /// The text with each `{biometry}` replaced by the name.
    static func naming(_ biometry: String, in text: String) -> String {
        text.split(separator: "{", omittingEmptySubsequences: false).enumerated().map { index, part in
            guard index > 0 else { return String(part) }
            return part.hasPrefix("biometry}") ? biometry + part.dropFirst("biometry}".count) : "{" + part
        }.joined()
    }

    static func name(of biometryType: BiometryType?) -> String {
        switch biometryType {
        case .faceID: "Face ID"
        case .touchID: "Touch ID"
        case .opticID: "Optic ID"
        case .fingerprint: "Fingerprint unlock"
        case .some(.none), nil: "Biometric unlock"
        }
    }

    private struct Texts {
        var description: String
        var recoverySuggestion: String?
    }

    private static let unknown = Texts(description: "Something went wrong.", recoverySuggestion: "Please try again.")

    /// One entry per code (a test checks `VaultError.Code.all` against it). `{biometry}` becomes the name.
    private static let texts: [VaultError.Code: Texts] = [
        .biometryNotAvailable: Texts(
            description: "{biometry} is not available on this device.",
            recoverySuggestion: "Sign in with your password instead."),
        .biometryNotEnrolled: Texts(
            description: "{biometry} is not set up on this device.",
            recoverySuggestion: "Set it up in the system settings, or sign in with your password."),
        .biometryLockout: Texts(
            description: "{biometry} is locked after too many attempts.",
            recoverySuggestion: "Enter your passcode or device password to continue."),
        .biometryChanged: Texts(
            description: "The enrolled faces or fingerprints changed, so your saved sign-in was removed.",
            recoverySuggestion: "Sign in again."),
        .userCancel: Texts(description: "Sign-in was cancelled.", recoverySuggestion: nil),
        .userFallback: Texts(
            description: "You chose to sign in another way.",
            recoverySuggestion: "Sign in with your password."),
        .systemCancel: Texts(
            description: "Sign-in was interrupted.",
            recoverySuggestion: "Please try again."),
        .authenticationFailed: Texts(
            description: "{biometry} did not recognise you.",
            recoverySuggestion: "Try again, or sign in with your password."),
        .passcodeNotSet: Texts(
            description: "This device has no passcode or password set.",
            recoverySuggestion: "Set a device passcode in the system settings to protect your sign-in."),
        .interactionNotAllowed: Texts(
            description: "Sign-in cannot ask you to confirm right now.",
            recoverySuggestion: "Open the app and try again."),
        .storeUnavailable: Texts(
            description: "Your saved sign-in could not be reached.",
            recoverySuggestion: "Please try again later."),
        .storeFull: Texts(
            description: "There is no room to save your sign-in.",
            recoverySuggestion: "Free some space, or remove sign-ins you no longer use, and try again."),
        .storeLocked: Texts(
            description: "The keychain holding your saved sign-in is locked.",
            recoverySuggestion: "Unlock your device or keyring, then try again."),
        .corruptedItem: Texts(
            description: "Your saved sign-in is damaged and cannot be read.",
            recoverySuggestion: "Sign in again."),
        .invalidKey: Texts(
            description: "The app used an invalid name for your saved sign-in.",
            recoverySuggestion: "Please contact the app's developer."),
        .credentialsTooLarge: Texts(
            description: "The sign-in details are too large to save.",
            recoverySuggestion: "Please contact the app's developer."),
        .invalidVault: Texts(
            description: "This action is not possible right now.",
            recoverySuggestion: "Please try again."),
        .vaultLocked: Texts(
            description: "Your saved sign-in is locked.",
            recoverySuggestion: "Unlock it with {biometry} and try again."),
        .itemNotFound: Texts(
            description: "Your saved sign-in no longer exists.",
            recoverySuggestion: "Sign in again."),
        .encodingFailed: Texts(
            description: "The sign-in details could not be saved.",
            recoverySuggestion: "Please contact the app's developer."),
        .invalidPrompt: Texts(
            description: "The app did not say why it asks you to confirm.",
            recoverySuggestion: "Please contact the app's developer."),
    ]

    /// Whether `code` has its own texts (not the generic fallback).
    static func hasTexts(for code: VaultError.Code) -> Bool { texts[code] != nil }
}
