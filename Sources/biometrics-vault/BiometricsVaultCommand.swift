import ArgumentParser
import BiometricsVault
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

/// `biometrics-vault`: keeps credentials (any JSON value) in the system keychain or behind a fingerprint.
/// Thin commands over the BiometricsVault library; one nested command per verb, in `Commands/`.
@main
struct BiometricsVaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "biometrics-vault",
        abstract: "Keep credentials in the system keychain, optionally behind your fingerprint.",
        discussion: """
            Credentials are any JSON value, read from stdin (or --from-file), never from the command line. \
            `show` prints them as JSON; `show KEY --field NAME` prints one raw value for $(...).

            EXAMPLES:
              echo '{"user":"ci","token":"s3cr3t"}' | biometrics-vault store github
              biometrics-vault upgrade github          # protect it with your fingerprint
              TOKEN=$(biometrics-vault show github --field token)
              biometrics-vault doctor                  # what is used here, and why

            \(ExitStatus.helpText)
            """,
        version: CLIVersion.current,
        subcommands: [
            Status.self, Store.self, Show.self, Update.self, Upgrade.self, Downgrade.self, Reset.self, List.self,
            Import.self, Doctor.self, Setup.self, PasswordPromptCheck.self,
            GitCredential.self, DockerCredential.self, Exec.self, ClearLockout.self, Key.self,
            Agent.self, Lock.self, Service.self, SecretService.self, Prompter.self, Audit.self, Unlock.self,
            SSHKey.self, SSHAgentCommand.self,
        ]
    )

    /// The global options, read wherever they stand on the line: before the verb, between `key` and its
    /// verb, or after it. ArgumentParser reads a command's options over the whole line, and a verb's
    /// `@OptionGroup` of the same type gets these values. Hidden here: each verb's help lists them.
    @OptionGroup(visibility: .hidden) var options: GlobalOptions

    /// Runs only when the line names no verb: an empty line prints the help; global options alone have
    /// nothing to apply to, which is a usage error.
    func run() throws {
        guard CommandLine.arguments.count > 1 else { throw CleanExit.helpRequest(self) }
        throw ValidationError("Missing the verb: see 'biometrics-vault --help'.")
    }

    /// ArgumentParser's `main`, with what must happen before any parsing: the process hardening, and the
    /// refusal of command lines ArgumentParser would misread (``RawArguments``). Help and usage texts go
    /// through ``Console`` too.
    ///
    /// Synchronous: the command runs in a task on the cooperative pool while this thread waits. An async
    /// `main` starts on the main actor and parks the main thread in `dispatch_main`, which ends it with
    /// `pthread_exit` (glibc then loads libgcc_s to unwind it) and needs another thread to come back to
    /// the main actor at the end. Nothing in the CLI uses the main actor or the main queue. The waiting
    /// thread takes the process's signals, as the thread parked by `dispatch_main` did, and the task ends
    /// the process.
    static func main() {
        TPMLibraryLogging.silenceForThisProcess()
        StandardDescriptors.occupyClosed()
        ThreadSignalMask.recordInherited()
        ProcessHardening.apply()
        if let shortage = ProcessHardening.addressSpaceShortage() {
            Console.report(status: .failure, code: "addressSpace", message: shortage, json: RawArguments.requestsJSON)
            exitProcess(ExitStatus.failure.rawValue)
        }
        if let index = RawArguments.firstNonUTF8Index() {
            Console.report(
                status: .badInput, code: "badInput",
                message: "command-line argument \(index) is not valid UTF-8; keys and options must be UTF-8 text",
                json: RawArguments.requestsJSON)
            exitProcess(ExitStatus.badInput.rawValue)
        }
        let arguments = RawArguments.arguments(
            program: CommandLine.arguments.first ?? "", Array(CommandLine.arguments.dropFirst()))
        if let word = RawArguments.shortOptionCluster(in: arguments) {
            Console.report(
                status: .usage, code: "usage",
                message: "unknown option '\(Console.terminalSafe(word))': the only short option is -h; "
                    + "a key that begins with '-' goes after '--', e.g. `show -- \(Console.terminalSafe(word))`",
                json: RawArguments.requestsJSON)
            exitProcess(ExitStatus.usage.rawValue)
        }
        // Detached: a plain `Task` would inherit the main actor of `main` and wait for this thread.
        Task.detached { exitProcess(await run(arguments)) }
        // This thread takes the process's signals (Ctrl-C, SIGTERM, SIGHUP) whatever mask the CLI inherited,
        // while the task runs the command; the task ends the process.
        ThreadSignalMask.acceptAll()
        while true { pause() }
    }

    /// Parses `arguments` with ArgumentParser, runs the command, prints any failure (or help), and returns
    /// the exit status; a command that succeeded still fails when stdout did not take its output.
    private static func run(_ arguments: [String]) async -> Int32 {
        var status = ExitStatus.ok.rawValue
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            status = exitCode(for: error).rawValue
            let text = fullMessage(for: error)
            if !text.isEmpty {
                if status == ExitStatus.ok.rawValue { Console.out(text) } else { Console.err(text) }
            }
        }
        if status == ExitStatus.ok.rawValue, let failed = Console.finishOutput(json: RawArguments.requestsJSON) {
            status = failed.rawValue
        }
        return status
    }
}
