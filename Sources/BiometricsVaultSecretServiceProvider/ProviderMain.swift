#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultLinuxAuth
import BiometricsVaultService
import CProcessControl
import Glibc

extension SecretServiceProvider {
    /// Runs the provider for this user on the session bus, its items in the vault service, until it loses
    /// the name or the bus goes. `log` gets one line per start, stop, prompt and failure: never a secret.
    package static func serve(replace: Bool, log: @escaping @Sendable (String) -> Void) async throws {
        // A same-user process must not read the secrets the provider holds (ptrace, /proc/PID/mem).
        _ = bv_set_not_dumpable()
        let authenticator = VaultServiceAuthenticator(service: "secret-service")
        let provider = try SecretServiceProvider(
            store: VaultServiceStore(),
            authenticator: { policy, reason in try await authenticator.authenticate(for: policy, prompt: PromptText(reason: reason)) },
            log: log)
        let result: Result<Void, any Error> = await withCheckedContinuation { continuation in
            let status = DedicatedThread.start(name: "secret-service") {
                do {
                    try provider.run(bus: .session, replace: replace) { log("secret service: serving org.freedesktop.secrets") }
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if status != 0 {
                continuation.resume(returning: .failure(VaultError(.storeUnavailable, underlying: .errno(status))))
            }
        }
        try result.get()
        log("secret service: stopped (the name was taken over or the bus closed)")
    }
}
#endif
