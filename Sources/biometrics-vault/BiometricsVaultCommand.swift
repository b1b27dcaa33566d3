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
///
/// Every command spells its `commandName`: ArgumentParser otherwise derives it from the type name with
/// `String(describing:)` for every command at every start, which in the static binary costs a protocol-
/// conformance scan per command (about 1.5 ms of each run, measured with perf).
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
            Agent.self, Lock.self,
        ]
    )

    /// ArgumentParser's `main`, with what must happen before any parsing: the process hardening, and the
    /// refusal of argv bytes that are not UTF-8 (ArgumentParser would decode them lossily, so `a\xffb` and
    /// `a\xfeb` would name one item). The command line as the user typed it becomes the one ArgumentParser
    /// reads (``CommandLineRewriting``). Help and usage texts go through ``Console`` too. The plainest
    /// `show` lines skip ArgumentParser's reflection (``DirectParse``).
    ///
    /// Synchronous: the command runs in a task on the cooperative pool while this thread waits (a directly
    /// parsed `show` runs on this thread, see ``runShow(_:)``). An async
    /// `main` starts on the main actor and parks the main thread in `dispatch_main`, which ends it with
    /// `pthread_exit` (glibc then loads libgcc_s to unwind it) and needs another thread to come back to
    /// the main actor at the end. Nothing in the CLI uses the main actor or the main queue. The waiting
    /// thread takes the process's signals, as the thread parked by `dispatch_main` did, and the task ends
    /// the process.
    static func main() {
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
        let arguments = CommandLineRewriting.arguments(
            program: CommandLine.arguments.first ?? "", Array(CommandLine.arguments.dropFirst()))
        if let word = CommandLineRewriting.shortOptionCluster(in: arguments) {
            Console.report(
                status: .usage, code: "usage",
                message: "unknown option '\(Console.terminalSafe(word))': the only short option is -h; "
                    + "a key that begins with '-' goes after '--', e.g. `show -- \(Console.terminalSafe(word))`",
                json: RawArguments.requestsJSON)
            exitProcess(ExitStatus.usage.rawValue)
        }
        // This thread takes the process's signals (Ctrl-C, SIGTERM, SIGHUP) whatever mask the CLI inherited:
        // before a directly parsed `show` runs here, and otherwise while the task runs the command.
        if let show = DirectParse.show(arguments) {
            ThreadSignalMask.acceptAll()
            runShow(show)
        } else {
            StorePreparation.start(for: arguments)
            // Detached: a plain `Task` would inherit the main actor of `main` and wait for this thread.
            Task.detached { exitProcess(await run(arguments)) }
            ThreadSignalMask.acceptAll()
        }
        // The task ends the process; this thread only takes the signals until then.
        while true { pause() }
    }

    /// Runs a directly parsed `show` on this thread, without a task and without ``StorePreparation``'s
    /// connecting thread: a plain item's read never waits for the user, and once the parse is this cheap
    /// the extra threads cost more than the overlap bought (about 0.4 ms for the task's thread, 0.1 to
    /// 0.2 ms and 1 ms of CPU for the connecting one; Docs/Benchmarks.md). The store connects here, when
    /// the session selects it. Ends the process, except for a locked item, whose unlock (a prompt that
    /// Ctrl-C cancels) continues in a task as ArgumentParser's `show` would run it.
    private static func runShow(_ show: ShowRequest) {
        let locked: Vault<JSONValue>?
        do {
            locked = try show.printUnlessLocked()
        } catch {
            exitProcess(exitStatus(after: error))
        }
        guard let locked else { exitProcess(exitStatus(after: nil)) }
        Task.detached {
            do {
                try await show.unlockAndPrint(locked)
                exitProcess(exitStatus(after: nil))
            } catch {
                exitProcess(exitStatus(after: error))
            }
        }
    }

    /// Parses `arguments` with ArgumentParser, runs the command, prints any failure, and returns the exit
    /// status.
    private static func run(_ arguments: [String]) async -> Int32 {
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return exitStatus(after: nil)
        } catch {
            return exitStatus(after: error)
        }
    }

    /// The exit status of a command that ended with `error` (`nil`: it succeeded), after printing the
    /// failure, or the stdout failure of a command that succeeded.
    private static func exitStatus(after error: (any Error)?) -> Int32 {
        var status = ExitStatus.ok.rawValue
        if let error {
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
