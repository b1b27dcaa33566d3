import ArgumentParser
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultJSON

extension BiometricsVaultCommand {
    /// `status KEY`: the item's state. Never prompts.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show whether KEY is stored, and how it is protected. Never prompts.",
            discussion: """
                States: emptyWithBiometrics, empty, keychain, keychainUpgradable, locked. Exits 0 for every state; \
                an item that cannot be read is not a state: a corrupted one exits 11 and is left in place \
                (`reset` would delete it, and with it the only copy of what it holds), an unreachable store 6. \
                After 5 failed fingerprint attempts it says that biometrics are locked out, and how to end that \
                (`clear-lockout`). It also shows this terminal's unlock window for the service, asking a running agent only (none \
                is started); `off` without a window length (--unlock-window, its variable or the config file).
                """)

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options, allowsStorePrompts: false)
                let vault = try session.retrieve(item.key)
                var report = VaultReport(vault: vault, session: session)
                report.lockedOut = VaultReport.biometricsLockedOut(vault: vault, session: session)
                report.unlockWindow = UnlockWindowHook.state(
                    options: options, service: options.service, storeIsService: session.selection.storeName == "service")
                report.print()
            }
        }
    }
}

/// What `status` (and the transitions, after they finish) print about a vault. Never its credentials.
struct VaultReport {
    let vault: Vault<JSONValue>
    let session: Session
    var action: String?
    /// `status` only: this terminal's unlock window for the service.
    var unlockWindow: UnlockWindowState?
    /// `status` only: whether fingerprints are locked out (`nil`: not asked).
    var lockedOut: Bool?

    init(vault: Vault<JSONValue>, session: Session, action: String? = nil) {
        self.vault = vault
        self.session = session
        self.action = action
    }

    var policy: ProtectionPolicy? {
        switch vault {
        case .biometrics(let vault): vault.policy
        case .locked(let vault): vault.policy
        case .empty, .emptyWithBiometrics, .keychain, .keychainUpgradable: nil
        }
    }

    var invalidation: String? {
        switch vault.invalidation {
        case nil: nil
        case .biometryChanged: "biometryChanged"
        case .unreadable(let error): "unreadable: \(error.code.name)"
        case .appReinstalled: "appReinstalled"
        case .passcodeRemoved: "passcodeRemoved"
        }
    }

    /// Whether biometrics are locked out (5 failed attempts), asked of the platform authenticator without a
    /// prompt, for the states where biometrics matter; `nil` for a plain or empty item without biometrics,
    /// which is not asked: "not locked out" would be a guess.
    static func biometricsLockedOut(vault: Vault<JSONValue>, session: Session) -> Bool? {
        switch vault {
        case .locked, .biometrics, .keychainUpgradable, .emptyWithBiometrics:
            return (session.configuration.authenticator as? SessionAwareAuthenticator)?.isLockedOut ?? false
        case .keychain, .empty:
            return nil
        }
    }

    /// What ends a lockout, as `show` says it when it meets one.
    static let lockoutRecovery =
        "biometrics are locked out after \(FailedAttemptCounter.limit) failed attempts; \(SessionAwareAuthenticator.Guidance.commandLine.lockoutWayOut)"

    func print() {
        var fields: [String: JSONValue] = [
            "key": .string(vault.key),
            "service": .string(session.configuration.service),
            "store": .string(session.selection.storeName),
            "state": .string(vault.stateName),
            "protected": .bool(vault.biometricsEnabled),
            "policy": policy.map { .string($0.rawValue) } ?? .null,
            "invalidation": invalidation.map { .string($0) } ?? .null,
        ]
        if let action { fields["action"] = .string(action) }
        var lines: [String] = []
        if let action { lines.append("\(action) '\(vault.key)'") }
        lines += [
            "key:       \(vault.key)",
            "service:   \(session.configuration.service)",
            "store:     \(session.selection.storeName)",
            "state:     \(vault.stateName)",
            "protected: \(vault.biometricsEnabled ? "yes (\(policy?.rawValue ?? "?"))" : "no")",
        ]
        if let invalidation { lines.append("invalidated: \(invalidation)") }
        if let lockedOut {
            fields["biometricsLockedOut"] = .bool(lockedOut)
            if lockedOut {
                fields["lockoutRecovery"] = .string(Self.lockoutRecovery)
                lines.append("lockout:   \(Self.lockoutRecovery)")
            }
        }
        if let unlockWindow {
            fields["unlockWindow"] = unlockWindow.json
            lines += unlockWindow.lines
        }
        Console.emit(session.options, json: .object(fields), text: lines.joined(separator: "\n"))
    }
}

extension UnlockWindowState {
    /// `--json`: `{"state": name, "windows": [...]}`, with `"reason"` when unavailable.
    var json: JSONValue {
        var fields: [String: JSONValue] = ["state": .string(name), "windows": .array([])]
        switch self {
        case .off, .noAgent, .noTerminal, .none: break
        case .unavailable(let reason): fields["reason"] = .string(reason)
        case .open(let windows):
            fields["windows"] = .array(windows.map {
                .object([
                    "service": .string($0.report.service), "policy": .string($0.report.policy),
                    "remainingSeconds": .integer(Int64($0.report.remainingSeconds)), "endsAt": .string($0.endsAt),
                ])
            })
        }
        return .object(fields)
    }
}
