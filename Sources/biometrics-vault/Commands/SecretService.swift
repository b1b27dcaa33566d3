import ArgumentParser
import BiometricsVault
import BiometricsVaultAgent
#if os(Linux)
import BiometricsVaultSecretServiceProvider
#endif

extension BiometricsVaultCommand {
    /// `secret-service`: the Secret Service provider on the session bus, its items in the vault service.
    struct SecretService: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "secret-service",
            abstract: "Provide the Secret Service (org.freedesktop.secrets) on the session bus, keeping its items in the vault service (see Docs/SecretServiceProvider.md).",
            discussion: """
                Programs that keep secrets through the Secret Service (secret-tool, python keyring, \
                git's libsecret helper, docker's secretservice helper, browsers) keep them in the vault \
                service without a change. An item under a policy (its collection's, or its own \
                biometrics-vault:policy attribute) is locked for every program until that program's \
                unlock prompt is answered by a finger or the password, in the vault service. Started by \
                session-bus activation when nothing else provides the name; --replace takes the name \
                from the running provider, stopping one that keeps it (gnome-keyring).
                """)

        @Flag(help: "Take org.freedesktop.secrets from the provider that owns it now.")
        var replace = false

        @Option(
            help: ArgumentHelp(
                "After a program's prompt, let the other programs of its terminal session read items of that policy without one for DURATION (90, 15m; at most 15m; 0 or off: never). Default: $\(UnlockWindowSetting.environmentVariable), else unlock-window in the config file, else off.",
                valueName: "duration"))
        var unlockWindow: UnlockWindowOption?

        @Flag(name: .customLong("import"), help: "Copy every item of the provider that owns org.freedesktop.secrets now (gnome-keyring, KeePassXC, KWallet) into the vault service, then exit; run it before --replace.")
        var importItems = false

        func validate() throws {
            if replace && importItems { throw ValidationError("--import reads the running provider: run it first, then --replace") }
        }

        func run() async throws {
            #if os(Linux)
            if importItems {
                do {
                    print(try await SecretServiceProvider.importFromRunningProvider { Console.notice($0) })
                } catch {
                    Console.notice("secret service: \(error)")
                    throw ExitCode(ExitStatus.storeUnavailable.rawValue)
                }
                return
            }
            do {
                try await SecretServiceProvider.serve(replace: replace, windowSeconds: UnlockWindowHook.windowSeconds(option: unlockWindow) ?? 0) {
                    Console.notice($0)
                }
            } catch {
                Console.notice("secret service: \(error)")
                throw ExitCode(ExitStatus.storeUnavailable.rawValue)
            }
            #else
            Console.notice("the Secret Service provider runs on Linux only")
            throw ExitCode(ExitStatus.storeUnavailable.rawValue)
            #endif
        }
    }
}
