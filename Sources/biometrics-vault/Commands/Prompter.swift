import ArgumentParser
import BiometricsVault
#if os(Linux)
import BiometricsVaultDBus
import BiometricsVaultProcess
import BiometricsVaultService
#endif

extension BiometricsVaultCommand {
    /// `prompter`: shows the vault service's checks as desktop notifications, one per graphical session.
    struct Prompter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prompter",
            abstract: "Show each fingerprint or password check of the vault service as a desktop notification, with a Cancel action (one per graphical session; see Docs/VaultService.md).",
            discussion: """
                Registers with the vault service as this user's prompter. From then on every check the \
                service runs for this user is shown here, whoever asks and whether or not it has a \
                terminal: the program that asks (as the kernel names it), the item, and how to answer. \
                Cancel ends the check at once. The package starts it with the graphical session (a user \
                unit bound to graphical-session.target, and an XDG autostart entry). A later prompter \
                of the same user takes over, and this one says so and exits.
                """)

        func run() async throws {
            #if os(Linux)
            do throws(VaultError) {
                let prompter = try VaultServicePrompter { Console.notice("prompter: \($0)") }
                let stop = DBusCancellation()
                async let answers: Void = DedicatedThread.run(name: "prompter-answers") { () throws(VaultError) in
                    prompter.serveNotifications(stop: stop)
                }
                let ending: VaultServicePrompter.Ending
                do throws(VaultError) {
                    ending = try await DedicatedThread.run(name: "prompter-service") { () throws(VaultError) in
                        try prompter.serveService(stop: stop)
                    }
                } catch {
                    stop.cancel()
                    try? await answers
                    throw error
                }
                stop.cancel()
                try? await answers
                if case .replaced(let by) = ending { Console.notice("prompter: another prompter took over: \(by)") }
            } catch {
                Console.notice("prompter: \(error)")
                throw ExitCode(ExitStatus(error).rawValue)
            }
            #else
            Console.notice("the prompter runs on Linux only")
            throw ExitCode(ExitStatus.storeUnavailable.rawValue)
            #endif
        }
    }
}
