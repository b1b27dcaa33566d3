import ArgumentParser
import BiometricsVault
#if canImport(Glibc)
import Glibc
#endif

extension BiometricsVaultCommand {
    /// `unlock --for-command -- COMMAND [ARGS...]`: one prompt of the vault service, then COMMAND and
    /// every process it starts read the service's protected items of `--service` without another.
    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unlock",
            abstract: "Open an unlock window of the vault service for one command and the processes it starts, then run it.",
            discussion: """
                The vault service asks for your finger (or, without one, your password), then opens a window \
                for this process, which then becomes COMMAND (execve): COMMAND and its descendants read the \
                protected items of --service without a prompt until the window's time (--unlock-window, \
                default 10m) or until COMMAND exits. Any other process, and a descendant that left the tree \
                (its parent exited), is asked as usual. Needs the vault service. The exit status is COMMAND's.

                EXAMPLE:
                  biometrics-vault unlock --for-command -- make deploy
                """)

        @OptionGroup var options: GlobalOptions

        @Flag(name: .customLong("for-command"), help: "Open the window for COMMAND and its descendants.")
        var forCommand = false

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The command to run and its arguments, after --.", valueName: "command"))
        var command: [String] = []

        /// The window's length when neither `--unlock-window` nor its variable nor the config file sets one.
        static let defaultSeconds = 600

        func validate() throws {
            guard forCommand else { throw ValidationError("Missing --for-command: unlock opens a window for a command only.") }
            guard !command.isEmpty else { throw ValidationError("Missing the command to run: put it after --.") }
        }

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                let seconds = UnlockWindowHook.windowSeconds(options) ?? Self.defaultSeconds
                let reason = "Open '\(Console.terminalSafe(options.service, escapingLineBreaks: true))' for `\(Console.terminalSafe(command[0], escapingLineBreaks: true))`"
                let shown = LockedValue<Task<Void, Never>?>(nil)
                let service = options.service
                try await Interrupts.cancellingOnInterrupt {
                    defer { shown.withLock { $0?.cancel() } }
                    try await VaultServiceControls.openCommandWindow(
                        service: service, seconds: seconds, reason: reason, hasTerminal: isatty(STDIN_FILENO) == 1
                    ) {
                        shown.withLock { $0 = Task { await FingerprintPromptLine.showNamingCaller(reason: reason, timeout: .seconds(30)) } }
                    }
                }
                if let task = shown.withLock({ $0 }) { await task.value }
                let program = try ProgramLookup.resolve(command[0], path: RawEnvironment.value(of: "PATH"))
                throw ProgramLookup.replaceProcess(program: program, arguments: command, environment: RawEnvironment.entries(replacing: [:]))
                #else
                throw VaultError(.storeUnavailable, underlying: .message("the vault service runs on Linux only"))
                #endif
            }
        }
    }
}
