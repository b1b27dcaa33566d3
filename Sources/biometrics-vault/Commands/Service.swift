import ArgumentParser
import BiometricsVault
#if os(Linux)
import BiometricsVaultServiceDaemon
import Glibc
#endif

extension BiometricsVaultCommand {
    /// `service`: the vault service, run by D-Bus activation under its own system user.
    struct Service: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "service",
            abstract: "Run the vault service on the system bus (started by D-Bus activation as the biometrics-vault user; see Docs/VaultService.md).",
            discussion: """
                The vault service keeps each user's items in its own encrypted store under its state \
                directory ($STATE_DIRECTORY, else /var/lib/biometrics-vault), which only its user can read, \
                and releases a protected item only after it has itself verified the caller's finger \
                (fprintd) or password (polkit). Commands reach it with --store service; auto picks it when \
                it answers. It refuses to run as root, and exits when idle.
                """)

        @Option(name: .customLong("idle-exit"), help: ArgumentHelp("Exit after this many seconds without a call or a live authentication.", valueName: "seconds"))
        var idleExit: Int = 60

        func validate() throws {
            guard (1...86_400).contains(idleExit) else { throw ValidationError("--idle-exit must be between 1 and 86400 seconds") }
        }

        func run() async throws {
            #if os(Linux)
            let state = RawEnvironment.value(of: "STATE_DIRECTORY").map { String(decoding: $0, as: UTF8.self) }?.split(separator: ":").first.map(String.init)
                ?? VaultServiceDaemon.defaultStateDirectory
            do {
                try await VaultServiceDaemon.run(stateDirectory: state, idleExit: .seconds(idleExit), tpm: TPMSettings.current) { Console.notice($0) }
            } catch {
                Console.notice("vault service: \(error)")
                throw ExitCode(ExitStatus.storeUnavailable.rawValue)
            }
            #else
            Console.notice("the vault service runs on Linux only")
            throw ExitCode(ExitStatus.storeUnavailable.rawValue)
            #endif
        }
    }
}
