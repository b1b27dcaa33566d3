#if os(Linux)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Linux platform default: probes the Secret Service, fprintd, PAM and polkit (through their adapter
/// files): the Secret Service when one exists (the file store only when there is none: no session bus,
/// nothing at its address, no provider), fprintd when it has a
/// device with enrolled fingers for the user, else no biometrics.
enum PlatformBackends {
    static func select(
        store storeChoice: PlatformStoreChoice,
        authenticator authenticatorChoice: PlatformAuthenticatorChoice,
        service: String,
        interaction: PlatformInteraction,
        preparesProbes: Bool = false
    ) -> PlatformSelection {
        // The vault service first: it enforces the finger itself, so it also authenticates. One that is
        // installed and fails may hold the items: `auto` reports it on every call, never switches stores.
        switch storeChoice {
        case .service:
            return VaultServiceAdapter.select(authenticator: authenticatorChoice, service: service, interaction: interaction)
        case .auto:
            switch VaultServiceAdapter.presence() {
            case .answers:
                return VaultServiceAdapter.select(authenticator: authenticatorChoice, service: service, interaction: interaction)
            case .failed(let error):
                return VaultServiceAdapter.select(
                    authenticator: authenticatorChoice, service: service, interaction: interaction, failed: error)
            case .absent:
                break
            }
        case .secretService, .file:
            break
        }
        // The library's platform default starts opening the store on another thread first, so the rest of
        // the selection (the PAM service check, starting the fprintd probe) overlaps its connection and
        // key exchange; the store choice further down joins that open instead of starting one.
        if preparesProbes { prepareStore(storeChoice) }
        let owner = ownerAuthentication(for: authenticatorChoice, interaction: interaction)
        let authenticator: any Authenticator
        var authenticatorName = "none"
        var fingerprintTimeout: Duration?
        var policy = ProtectionPolicy.biometryCurrentSet
        switch authenticatorChoice {
        case .fprintd:
            authenticator = LinuxAuthAdapter.makeFingerprint(owner: owner)
            authenticatorName = "fprintd"
            fingerprintTimeout = LinuxAuthAdapter.fingerprintTimeout
        case .auto:
            // fprintd when it has a reader with enrolled fingers (locked out or not), else no biometrics;
            // probed on first use.
            let deferred = DeferredAuthenticator(choosing: {
                switch LinuxAuthAdapter.probeFingerprint(claiming: false) {
                case .success:
                    // The probe found the reader ready, fingers enrolled and no lockout: exactly what the
                    // fingerprint authenticator answers now for every policy but the owner-only one.
                    DeferredAuthenticator.Choice(
                        authenticator: LinuxAuthAdapter.makeFingerprint(owner: owner),
                        observedAvailability: { $0 == .devicePasscode ? nil : .available })
                case .failure(let reason) where reason.code == .biometryLockout:
                    // Locked out is not "no biometrics": the reader stays the authenticator, so
                    // protected items read as locked (its enrollment is still known) and the owner's
                    // password clears the lockout. The plain stand-in would read them as invalidated.
                    DeferredAuthenticator.Choice(
                        authenticator: LinuxAuthAdapter.makeFingerprint(owner: owner),
                        observedAvailability: { _ in nil })
                case .failure(let reason):
                    DeferredAuthenticator.Choice(
                        authenticator: UnavailableAuthenticator(reason: reason, owner: owner),
                        observedAvailability: { _ in nil })
                }
            })
            // The library's platform default probes fprintd on another thread while the store below is
            // connected (its first retrieveVault needs both); the CLI never makes a plain read probe. A
            // thread of its own, not a dispatch worker: the probe (fprintd's polkit check) often ends
            // after the read, so it starts as soon as it can (Docs/Benchmarks.md, "The fingerprint probe").
            if preparesProbes { deferred.startProbing(startingThread: LinuxAuthAdapter.startProbeThread) }
            authenticator = deferred
            authenticatorName = "auto"
            fingerprintTimeout = LinuxAuthAdapter.fingerprintTimeout
        case .pam, .polkit:
            // No biometrics: "protected" items are gated by the login password.
            policy = .devicePasscode
            authenticator = UnavailableAuthenticator(reason: notChosen(authenticatorChoice), owner: owner)
        case .none:
            authenticator = UnavailableAuthenticator(reason: notChosen(authenticatorChoice), owner: nil)
        }

        var notice: String?
        let store: any SecretStore
        switch storeChoice {
        case .service:
            preconditionFailure("the vault service is selected above")
        case .secretService:
            store = SecretServiceAdapter.makeStore(allowsPrompts: interaction.allowsStorePrompts)
        case .file:
            store = FileStoreAdapter.makeStore(interaction: interaction)
        case .auto:
            // Connecting is the probe (one connection, not two); a locked keyring still connects. The file
            // store only when there is no Secret Service at all: a bus or provider that exists but failed
            // (a busy bus that did not answer in time) may hold the items, so that is an error, never a switch.
            switch SecretServiceAdapter.connect(allowsPrompts: interaction.allowsStorePrompts) {
            case .connected(let secretService):
                store = secretService
            case .absent(let error):
                store = FileStoreAdapter.makeStore(interaction: interaction)
                let reason = error.underlying?.description ?? error.code.name
                notice = "no Secret Service (\(reason)); using the encrypted file store in \(FileStoreAdapter.location)"
            case .failed(let error):
                store = SecretServiceAdapter.failedStore(error)
            }
        }

        let configuration = VaultConfiguration(
            store: store, authenticator: authenticator, policy: policy, service: service)
        return PlatformSelection(
            configuration: configuration, storeName: store.name, authenticatorName: authenticatorName,
            ownerAuthenticationName: owner?.name ?? "none", fingerprintTimeout: fingerprintTimeout, notice: notice)
    }

    /// Starts connecting to the store `storeChoice` would use, on another thread (see
    /// ``VaultConfiguration/prepareStore(_:)``).
    static func prepareStore(_ storeChoice: PlatformStoreChoice) {
        switch storeChoice {
        case .auto, .secretService: SecretServiceAdapter.prepareConnection()
        case .file, .service: break  // local files, or the system bus: nothing to prepare
        }
    }

    /// Never claims the fingerprint reader: a diagnosis must not make another process's verify fail
    /// with "device busy".
    static func diagnose(interaction: PlatformInteraction) -> PlatformDiagnosis {
        // The vault service is picked whenever it answers, else the Secret Service whenever one exists
        // (SecretServiceAdapter.probe()), as in `select`.
        let vaultService = VaultServiceAdapter.probe()
        var secretService = SecretServiceAdapter.probe()
        if vaultService.isSelected { secretService.isSelected = false }
        var file = FileStoreAdapter.probe(tpm: interaction.tpm)
        file.isSelected = !vaultService.isSelected && !secretService.isSelected

        var fprintd: PlatformComponent
        switch LinuxAuthAdapter.probeFingerprint(claiming: false) {
        case .success(let detail):
            fprintd = .usable(.authenticator, "fprintd", detail)
            fprintd.isSelected = true
        case .failure(let reason):
            fprintd = .unusable(.authenticator, "fprintd", reason)
            // A locked-out reader is still the one `auto` uses (see `select`).
            fprintd.isSelected = reason.code == .biometryLockout
        }

        var pam = LinuxAuthAdapter.probePAM(interaction: interaction)
        var polkit = LinuxAuthAdapter.probePolkit()
        if pam.isUsable {
            pam.isSelected = true
        } else if polkit.isUsable {
            polkit.isSelected = true
        }
        var service: [PlatformComponent] = []
        if vaultService.isSelected {
            // The service verifies fingers and passwords itself.
            fprintd.isSelected = false
            pam.isSelected = false
            polkit.isSelected = false
            var verifier = PlatformComponent.usable(.authenticator, "service", "the vault service verifies the finger itself (fprintd)")
            verifier.isSelected = true
            var owner = PlatformComponent.usable(.ownerAuthentication, "service", "the vault service asks polkit for the password")
            owner.isSelected = true
            service = [verifier, owner]
        }
        return PlatformDiagnosis(components: [vaultService, secretService, file] + service + [fprintd, pam, polkit])
    }

    /// Owner authentication: PAM on a terminal, polkit where a desktop agent answers (for `auto` and
    /// `fprintd`); exactly the one named for `pam` / `polkit`.
    private static func ownerAuthentication(
        for choice: PlatformAuthenticatorChoice, interaction: PlatformInteraction
    ) -> UnavailableAuthenticator.OwnerAuthentication? {
        switch choice {
        case .pam:
            return LinuxAuthAdapter.makePAM(interaction: interaction)
        case .polkit:
            return LinuxAuthAdapter.makePolkit()
        case .none:
            return nil
        case .auto, .fprintd:
            if LinuxAuthAdapter.probePAM(interaction: interaction).isUsable {
                return LinuxAuthAdapter.makePAM(interaction: interaction)
            }
            // polkit is asked (a system-bus round trip) only when a password is actually needed.
            if LinuxAuthAdapter.hasGraphicalSession { return LinuxAuthAdapter.makePolkit() }
            return nil
        }
    }

    static func importItem(
        service: String, username: String, into id: SecretItemID, removeSource: Bool,
        converting: (SecretBytes) throws -> SecretBytes
    ) throws {
        try SecretServiceAdapter.importItem(
            service: service, username: username, into: id, removeSource: removeSource, converting: converting)
    }

    private static func notChosen(_ choice: PlatformAuthenticatorChoice) -> VaultError {
        VaultError(.biometryNotAvailable, underlying: .message("biometrics not used (--authenticator \(choice.rawValue))"))
    }
}
#endif
