#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

// The platform default: which store and which authenticator a vault uses when the app does
// not say, and the diagnosis behind that choice (`biometrics-vault doctor` prints it).
//
// The platform-specific probing lives in `PlatformDefault+Linux.swift` / `PlatformDefault+Other.swift`;
// each backend is reached through one small adapter file (`PlatformDefault+FileStore.swift`, ...).

/// Which store a platform configuration uses.
public enum PlatformStoreChoice: String, Sendable, Hashable, CaseIterable, Codable {
    /// The Secret Service when a provider answers on the session bus, else the encrypted file store.
    case auto
    /// The freedesktop Secret Service (gnome-keyring, KeePassXC, ...). Linux only.
    case secretService = "secret-service"
    /// The encrypted file store under `$XDG_DATA_HOME/biometrics-vault`.
    case file
}

/// Which authenticator a platform configuration uses.
public enum PlatformAuthenticatorChoice: String, Sendable, Hashable, CaseIterable, Codable {
    /// fprintd when it has a device with enrolled fingers for the user (also while they are locked out
    /// after failed attempts), else no biometrics; owner
    /// authentication by PAM on a terminal, else polkit where an agent answers.
    case auto
    /// The fingerprint reader through fprintd (owner authentication chosen as for `auto`).
    case fprintd
    /// No biometrics; protected items are gated by the login password through PAM (terminal prompt).
    case pam
    /// No biometrics; protected items are gated by the login password through polkit (desktop agent).
    case polkit
    /// No biometrics and no owner authentication: items can only be stored plainly.
    case none
}

/// How a platform configuration talks to the user, for the prompts the platform itself does not draw
/// (a PAM conversation on a terminal).
/// Which secret opens the file store (``PlatformInteraction/readStoreSecret``).
public enum StoreSecretKind: Sendable, Hashable {
    /// The passphrase that wraps the store's key (`key passphrase`).
    case passphrase
    /// The PIN the TPM checks before it unseals the store's key (`key seal --tpm --pin`).
    case tpmPIN
}

public struct PlatformInteraction: Sendable {
    /// Whether the process can prompt on its controlling terminal.
    public var hasTerminal: Bool
    /// Reads one secret answer (a password) without echo, after showing `prompt`. `nil` means cancelled
    /// (Ctrl-C, Ctrl-D, no terminal). The returned bytes are zeroed when released.
    public var readSecret: @Sendable (_ prompt: String) -> SecretBytes?
    /// Shows an informational line from the authentication stack (PAM text info / error messages).
    public var showMessage: @Sendable (_ text: String) -> Void
    /// Reads the secret that opens the file store (its passphrase, or the PIN of its TPM-sealed key).
    /// By default the same as ``readSecret``; a command-line tool may take it from stdin instead.
    public var readStoreSecret: @Sendable (_ kind: StoreSecretKind, _ prompt: String) -> SecretBytes?
    /// Whether the store may run a confirmation its provider asks for (a Secret Service prompt object:
    /// gnome-keyring's unlock dialog, KWallet's wallet password). `false` for a caller that must not
    /// interact (a status line): `Prompt()` is never called, and an operation that needs it is
    /// `storeLocked` at once. KWallet reports even an open wallet locked until some client unlocks it,
    /// so such a caller may see `storeLocked` where a prompting one would not.
    public var allowsStorePrompts: Bool = true

    public init(
        hasTerminal: Bool,
        readSecret: @escaping @Sendable (_ prompt: String) -> SecretBytes?,
        showMessage: @escaping @Sendable (_ text: String) -> Void,
        readStoreSecret: (@Sendable (_ kind: StoreSecretKind, _ prompt: String) -> SecretBytes?)? = nil
    ) {
        self.hasTerminal = hasTerminal
        self.readSecret = readSecret
        self.showMessage = showMessage
        self.readStoreSecret = readStoreSecret ?? { _, prompt in readSecret(prompt) }
    }

    /// Prompts on the controlling terminal (`/dev/tty`) with echo off, when the process has one.
    public static var terminal: PlatformInteraction {
        PlatformInteraction(
            hasTerminal: TerminalPrompt.isAvailable,
            readSecret: { TerminalPrompt.readSecret(prompt: $0) },
            showMessage: { TerminalPrompt.show($0) })
    }

    /// Never prompts (for daemons and tests): every secret question is answered "cancelled".
    public static let noninteractive = PlatformInteraction(
        hasTerminal: false, readSecret: { _ in nil }, showMessage: { _ in })
}

/// One store or authenticator the platform offers, and whether it can be used here.
public struct PlatformComponent: Sendable, Hashable, Codable {
    /// What the component does.
    public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
        /// Keeps the bytes.
        case store
        /// Biometric authentication.
        case authenticator
        /// Owner authentication (login password): `.userPresence` / `.devicePasscode` items and lockout reset.
        case ownerAuthentication
    }

    public var role: Role
    /// The name used by `--store` / `--authenticator` (`"secret-service"`, `"file"`, `"fprintd"`, ...).
    public var name: String
    /// Whether it can be used now.
    public var isUsable: Bool
    /// Why it cannot be used (the exact reason), or a short note about where it is when it can.
    public var detail: String
    /// The error code behind an unusable component (`storeUnavailable`, `biometryNotEnrolled`, ...).
    public var errorCode: String?
    /// Whether `auto` picks it.
    public var isSelected: Bool

    public init(role: Role, name: String, isUsable: Bool, detail: String, errorCode: String? = nil, isSelected: Bool = false) {
        self.role = role
        self.name = name
        self.isUsable = isUsable
        self.detail = detail
        self.errorCode = errorCode
        self.isSelected = isSelected
    }

    /// A usable component.
    static func usable(_ role: Role, _ name: String, _ detail: String) -> PlatformComponent {
        PlatformComponent(role: role, name: name, isUsable: true, detail: detail)
    }

    /// An unusable component and the error that says why.
    static func unusable(_ role: Role, _ name: String, _ error: VaultError) -> PlatformComponent {
        PlatformComponent(
            role: role, name: name, isUsable: false, detail: error.underlying?.description ?? error.code.name,
            errorCode: error.code.name)
    }
}

/// Every store and authenticator of this platform, usable or not and why, and which ones `auto` picks.
public struct PlatformDiagnosis: Sendable, Hashable, Codable {
    /// In the order `auto` considers them, per role.
    public var components: [PlatformComponent]

    public init(components: [PlatformComponent]) {
        self.components = components
    }

    /// The components of one role.
    public func components(_ role: PlatformComponent.Role) -> [PlatformComponent] {
        components.filter { $0.role == role }
    }

    /// The component `auto` picks for `role` (`nil` when none of that role is usable).
    public func selected(_ role: PlatformComponent.Role) -> PlatformComponent? {
        components.first { $0.role == role && $0.isSelected }
    }
}

/// A configuration built from explicit or automatic choices, with the facts behind it.
public struct PlatformSelection: Sendable {
    /// The configuration to retrieve vaults with.
    public var configuration: VaultConfiguration
    /// The store's name (`"secret-service"` or `"file"`).
    public var storeName: String
    /// The biometric authenticator's name: `"fprintd"`, `"none"`, or `"auto"` (fprintd or none, decided
    /// on first use).
    public var authenticatorName: String
    /// The owner authentication's name (`"pam"`, `"polkit"`) or `"none"`.
    public var ownerAuthenticationName: String
    /// How long one fingerprint prompt waits for a finger, when the authenticator may be fprintd
    /// (check ``VaultConfiguration/authenticator``'s `biometryType` before showing a prompt).
    public var fingerprintTimeout: Duration?
    /// A note for the user about an automatic fallback (e.g. "no Secret Service; using the file store").
    public var notice: String?
}

extension VaultConfiguration {
    /// The platform default configuration, with ``defaultService``.
    ///
    /// Linux: the Secret Service when a provider answers on the session bus, else the encrypted file store
    /// (said once on stderr, see ``PlatformDefaultNotice``); fprintd when it has a device with enrolled
    /// fingers for the user, locked out or not (protected items then read as locked), else an authenticator reporting biometrics unavailable (vaults are `.empty` /
    /// `.keychain`); owner authentication by PAM on a terminal, polkit where a desktop agent exists.
    /// iOS, macOS, visionOS: the Keychain with LocalAuthentication. Other platforms: the encrypted file store
    /// without biometrics.
    ///
    /// Probed once per process; copies share one session registry.
    public static var platformDefault: VaultConfiguration {
        PlatformDefaultCache.shared.configuration
    }

    /// A configuration for explicit (or automatic) store and authenticator choices, as the CLI's
    /// `--store` / `--authenticator` flags select them.
    ///
    /// An explicit choice is used even when it is not usable here: its operations then fail with the
    /// backend's exact error (for example `storeUnavailable` "no session bus"). `auto` probes and picks
    /// a usable one, reporting a fallback in ``PlatformSelection/notice``.
    public static func platform(
        store: PlatformStoreChoice = .auto,
        authenticator: PlatformAuthenticatorChoice = .auto,
        service: String = VaultConfiguration.defaultService,
        interaction: PlatformInteraction = .terminal
    ) -> PlatformSelection {
        PlatformBackends.select(store: store, authenticator: authenticator, service: service, interaction: interaction)
    }

    /// Starts connecting, on another thread, to the store that ``platform(store:authenticator:service:interaction:)``
    /// with this `store` choice will use, and returns at once; that call then waits for this connection
    /// instead of opening its own.
    ///
    /// For a program that knows early which store it will use and has work to do before it asks
    /// (the CLI parses its command line meanwhile). Linux: the Secret Service for `auto` and
    /// `secretService` (its bus connection and encrypted session); if it cannot be reached, `platform`
    /// tries again and falls back or reports as usual. Nothing for `file`, nor on other platforms.
    public static func prepareStore(_ store: PlatformStoreChoice = .auto) {
        PlatformBackends.prepareStore(store)
    }

    /// Probes every store and authenticator of this platform, without prompting.
    public static func platformDiagnosis(interaction: PlatformInteraction = .terminal) -> PlatformDiagnosis {
        PlatformBackends.diagnose(interaction: interaction)
    }
}

extension PlatformSelection {
    /// Adopts an item written by `secret-tool` or python `keyring` (attributes `service`, `username`) as
    /// the plain item `key` of this selection's service, in the Secret Service store.
    ///
    /// `converting` turns the source's secret into the stored payload (the credentials' stored text),
    /// or throws to refuse it; it runs before anything is written (see
    /// `SecretServiceStore.importItem(service:username:as:removeSource:converting:)`).
    ///
    /// - Throws: `storeUnavailable` when the Secret Service is not this selection's store or cannot be
    ///   reached, `itemNotFound` when no such item exists, `invalidKey`, what `converting` throws.
    public func importSecretServiceItem(
        service: String, username: String, as key: String, removeSource: Bool,
        converting: (SecretBytes) throws -> SecretBytes
    ) throws {
        guard storeName == "secret-service" else {
            throw VaultError(.storeUnavailable, underlying: .message("import needs the secret-service store, not \(storeName)"))
        }
        let id = try SecretItemID(service: configuration.service, key: key)
        try PlatformBackends.importItem(
            service: service, username: username, into: id, removeSource: removeSource, converting: converting)
    }
}

extension VaultFactory {
    /// The vault for `key` under ``VaultConfiguration/platformDefault``, without prompting.
    ///
    /// - Important: Cannot report errors (see ``retrieveVault(key:configuration:)``); prefer
    ///   ``retrieveVaultOrThrow(key:)``.
    public static func retrieveVault(key: String) -> Vault<Credentials> {
        retrieveVault(key: key, configuration: .platformDefault)
    }

    /// Like ``retrieveVault(key:)``, but throws `invalidKey`, `storeUnavailable`, `storeLocked` and
    /// `corruptedItem` instead of calling them empty.
    public static func retrieveVaultOrThrow(key: String) throws -> Vault<Credentials> {
        try retrieveVaultOrThrow(key: key, configuration: .platformDefault)
    }
}

/// Where the one-time notice about a platform-default fallback goes (default: one line on stderr).
public enum PlatformDefaultNotice {
    private static let handler = LockedValue<@Sendable (String) -> Void>({ message in
        let line = Array("biometrics-vault: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // best effort, like any notice
    })

    /// Replaces the notice handler (for example to log instead of writing to stderr).
    public static func setHandler(_ newHandler: @escaping @Sendable (String) -> Void) {
        handler.withLock { $0 = newHandler }
    }

    static func post(_ message: String) {
        let current = handler.withLock { $0 }
        current(message)
    }
}

/// The platform default, probed once per process.
final class PlatformDefaultCache: Sendable {
    static let shared = PlatformDefaultCache()
    private let cached = LockedValue<VaultConfiguration?>(nil)

    var configuration: VaultConfiguration {
        cached.withLock { cached in
            if let cached { return cached }
            let selection = PlatformBackends.select(
                store: .auto, authenticator: .auto, service: VaultConfiguration.defaultService, interaction: .terminal,
                preparesProbes: true)
            if let notice = selection.notice { PlatformDefaultNotice.post(notice) }
            cached = selection.configuration
            return selection.configuration
        }
    }
}

/// An authenticator for a machine without usable biometrics: every biometric policy is unavailable for
/// the given reason, so vaults are `.empty` / `.keychain`.
///
/// When owner authentication (the login password through PAM or polkit) is supplied, `.userPresence`
/// and `.devicePasscode` are satisfied by it, and ``authenticateOwner(prompt:)`` uses it.
public struct UnavailableAuthenticator: Authenticator {
    /// Owner authentication by password: a name for diagnostics and the two operations it offers.
    public struct OwnerAuthentication: Sendable {
        /// `"pam"`, `"polkit"`, ...
        public var name: String
        /// Whether owner authentication can run now, without prompting.
        public var availability: @Sendable () -> AuthenticatorAvailability
        /// Prompts once for the owner's password; throws `userCancel`, `authenticationFailed`, ...
        public var authenticate: @Sendable (PromptText) async throws -> Void

        public init(
            name: String,
            availability: @escaping @Sendable () -> AuthenticatorAvailability,
            authenticate: @escaping @Sendable (PromptText) async throws -> Void
        ) {
            self.name = name
            self.availability = availability
            self.authenticate = authenticate
        }
    }

    /// Why biometrics are unavailable (`biometryNotAvailable`, `biometryNotEnrolled`, ...).
    public let reason: VaultError
    /// Owner authentication, if any.
    public let owner: OwnerAuthentication?

    public init(reason: VaultError, owner: OwnerAuthentication? = nil) {
        self.reason = reason
        self.owner = owner
    }

    public var biometryType: BiometryType { .none }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        if policy.requiresBiometry { return .unavailable(reason) }
        guard let owner else { return .unavailable(Self.noOwnerAuthentication) }
        return owner.availability()
    }

    /// `nil` (nothing enrolled) only when that is the reason; otherwise the enrolled set is unknown, so this
    /// throws the reason, as ``Authenticator`` asks (a reader that cannot be asked is not an enrollment change).
    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        if reason.code == .biometryNotEnrolled { return nil }
        throw reason
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        if policy.requiresBiometry { throw reason }
        guard let owner else { throw Self.noOwnerAuthentication }
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        try await owner.authenticate(prompt)
        return Authorization(policy: policy, enrollment: nil)
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        guard let owner else { throw Self.noOwnerAuthentication }
        try await owner.authenticate(prompt)
    }

    static let noOwnerAuthentication = VaultError(
        .passcodeNotSet, underlying: .message("no owner authentication (PAM on a terminal or a polkit agent)"))
}

/// An authenticator chosen on first use, so a run that never needs one (reading a plain item) never
/// pays for the probe behind the choice (several fprintd round trips, each checked by polkit).
///
/// The library's platform default starts the probe early (``startProbing(startingThread:)``), on another
/// thread, so it overlaps connecting to the Secret Service; the first call that needs the choice waits for it.
struct DeferredAuthenticator: Authenticator {
    /// The authenticator a probe chose, and what it answers `availability(for:)` with at the moment of
    /// the probe, as the probe saw it (`nil` for a policy the probe says nothing about).
    struct Choice: Sendable {
        var authenticator: any Authenticator
        var observedAvailability: @Sendable (ProtectionPolicy) -> AuthenticatorAvailability?
    }

    /// How long after the probe its observation may still answer `availability(for:)`.
    static let observationLifetime: Duration = .seconds(1)

    private let probe: ChoiceProbe

    init(_ resolve: @escaping @Sendable () -> any Authenticator) {
        self.init(choosing: { Choice(authenticator: resolve(), observedAvailability: { _ in nil }) })
    }

    /// The first call after the probe, if it is `availability(for:)` and comes within
    /// ``observationLifetime``, is answered from the probe's observation instead of asking the platform
    /// again in the same instant: for fprintd that would be a second system-bus connection and about seven
    /// more calls, one of which fprintd checks with polkit (about 5 ms of a cold retrieveVault).
    init(choosing resolve: @escaping @Sendable () -> Choice, clock: VaultClock = .continuous) {
        self.probe = ChoiceProbe(resolve, clock: clock)
    }

    private var authenticator: any Authenticator { probe.choice(wantsObservation: false).choice.authenticator }

    /// Starts the probe on a thread `startThread` starts, unless it has started already; returns at once.
    /// `startThread` runs its argument on a new thread and returns false if it could start none (the probe
    /// then runs here, before this returns).
    func startProbing(startingThread startThread: (_ body: @escaping @Sendable () -> Void) -> Bool) {
        probe.startInBackground(startingThread: startThread)
    }

    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        let (choice, observationIsFresh) = probe.choice(wantsObservation: true)
        return (observationIsFresh ? choice.observedAvailability(policy) : nil) ?? choice.authenticator.availability(for: policy)
    }

    var biometryType: BiometryType { authenticator.biometryType }

    func currentEnrollment() throws -> EnrollmentFingerprint? {
        try authenticator.currentEnrollment()
    }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        try await authenticator.authenticate(for: policy, prompt: prompt)
    }

    func authenticateOwner(prompt: PromptText) async throws {
        try await authenticator.authenticateOwner(prompt: prompt)
    }
}

/// Runs the probe behind a ``DeferredAuthenticator``'s choice exactly once: inline on first use, or
/// earlier on a thread of its own (`startInBackground`); callers arriving while it runs wait for it.
private final class ChoiceProbe: Sendable {
    private enum State {
        case notStarted
        case running
        /// `observedAt` is cleared once the observation has been handed out (or passed over).
        case chosen(DeferredAuthenticator.Choice, observedAt: Duration?)
    }

    private let resolve: @Sendable () -> DeferredAuthenticator.Choice
    private let clock: VaultClock
    private let state = LockedValue(State.notStarted)
    private let finished = DispatchGroup()

    init(_ resolve: @escaping @Sendable () -> DeferredAuthenticator.Choice, clock: VaultClock) {
        self.resolve = resolve
        self.clock = clock
    }

    func startInBackground(startingThread startThread: (_ body: @escaping @Sendable () -> Void) -> Bool) {
        if claim(), !startThread({ self.run() }) { run() }
    }

    /// The choice, and whether the caller may use the probe's observation: only the first caller after
    /// the probe, within the observation's lifetime.
    func choice(wantsObservation: Bool) -> (choice: DeferredAuthenticator.Choice, observationIsFresh: Bool) {
        if claim() { run() } else { finished.wait() }
        let now = clock.now()
        return state.withLock { state in
            switch state {
            case .chosen(let choice, let observedAt):
                state = .chosen(choice, observedAt: nil)
                let fresh = observedAt.map { now - $0 <= DeferredAuthenticator.observationLifetime } ?? false
                return (choice, fresh && wantsObservation)
            case .notStarted, .running:
                preconditionFailure("the probe finished without a choice")
            }
        }
    }

    /// True for the one caller that gets to run the probe.
    private func claim() -> Bool {
        state.withLock { state in
            guard case .notStarted = state else { return false }
            state = .running
            finished.enter()
            return true
        }
    }

    private func run() {
        let choice = resolve()
        let observedAt = clock.now()
        state.withLock { $0 = .chosen(choice, observedAt: observedAt) }
        finished.leave()
    }
}
