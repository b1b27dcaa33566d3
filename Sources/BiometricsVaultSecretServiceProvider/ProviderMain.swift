#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultLinuxAuth
import BiometricsVaultProcess
import BiometricsVaultService
import CProcessControl
import Glibc

extension SecretServiceProvider {
    /// Runs the provider for this user on the session bus, its items in the vault service, until it loses
    /// the name or the bus goes. `log` gets one line per start, stop, prompt and failure: never a secret.
    /// `windowSeconds`: how long a prompt also serves the other clients of its terminal session (0:
    /// never); the windows close when the screen locks or the machine is about to sleep, too.
    package static func serve(replace: Bool, windowSeconds: Int = 0, log: @escaping @Sendable (String) -> Void) async throws {
        // A same-user process must not read the secrets the provider holds (ptrace, /proc/PID/mem).
        _ = bv_set_not_dumpable()
        let authenticator = VaultServiceAuthenticator(service: "secret-service")
        let provider = try SecretServiceProvider(
            store: VaultServiceStore(),
            authenticator: { policy, reason in try await authenticator.authenticate(for: policy, prompt: PromptText(reason: reason)) },
            windowSeconds: windowSeconds, log: log)
        // A signal can only close windows, so one from any sender is taken.
        let screenLock = windowSeconds > 0
            ? try? ScreenLockWatcher { [weak provider] signal, _ in provider?.closeAllWindows(reason: "\(signal.rawValue) locked") }
            : nil
        defer { screenLock?.stop() }
        try await DedicatedThread.run(name: "secret-service") { () throws(VaultError) in
            do {
                try provider.run(bus: .session, replace: replace) { log("secret service: serving org.freedesktop.secrets") }
            } catch {
                throw vaultError(error)
            }
        }
        log("secret service: stopped (the name was taken over or the bus closed)")
    }

    /// Imports every item of the provider that owns `org.freedesktop.secrets` on the session bus now into
    /// the vault service, for this provider (ProviderImport). A summary line.
    package static func importFromRunningProvider(log: @escaping @Sendable (String) -> Void) async throws -> String {
        try await DedicatedThread.run(name: "secret-service-import") { () throws(VaultError) -> String in
            do {
                let outcome = try ProviderImport.run(from: .session, into: ProviderStorage(store: VaultServiceStore()), log: log)
                return "imported \(outcome.imported) item(s) of \(outcome.collections) collection(s); \(outcome.skipped) already there"
            } catch {
                throw vaultError(error)
            }
        }
    }

    private static func vaultError(_ error: any Error) -> VaultError {
        switch error {
        case let error as VaultError: error
        case let error as DBusFailure: VaultError(.storeUnavailable, underlying: .dbus(name: error.name, message: error.message))
        default: VaultError(.storeUnavailable, underlying: .message("\(error)"))
        }
    }
}
#endif
