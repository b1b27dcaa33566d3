import ArgumentParser
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultJSON

extension BiometricsVaultCommand {
    /// `agent`: the unlock-window agent, in the foreground.
    struct Agent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent",
            abstract: "Run the unlock-window agent in the foreground (commands with --unlock-window start it when needed).",
            discussion: """
                With --unlock-window DURATION (or $BIOMETRICS_VAULT_UNLOCK_WINDOW, or unlock-window = DURATION in \
                $XDG_CONFIG_HOME/biometrics-vault/config), a command that authenticated \
                for a protected item asks this agent to keep the item's service open for DURATION, for the \
                terminal it runs on (controlling terminal and login session). Until then, commands on that \
                terminal read the service's protected items without a prompt; another terminal, or a process \
                without a terminal, is asked as usual. Windows live only in the agent's memory. They end at \
                their time, on `biometrics-vault lock`, when the screen locks or the system is about to sleep, \
                and when the agent exits (idle, SIGTERM, killed). The agent listens on \
                $XDG_RUNTIME_DIR/biometrics-vault/agent.sock and answers this user's processes only.
                """)

        @Option(name: .customLong("idle-exit"), help: ArgumentHelp("Exit after this many seconds without a window or a client.", valueName: "seconds"))
        var idleExit: Int = 60

        @Flag(help: "Instead of running the agent, print the windows open for this terminal and when they end.")
        var status = false

        @Flag(
            name: .customLong("log-file"),
            help: "Log to $XDG_RUNTIME_DIR/biometrics-vault/agent.log (never a symlink; started anew past 1 MiB) instead of stderr, which is never truncated. Commands that start the agent use it.")
        var logFile = false

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard (1...86_400).contains(idleExit) else { throw ValidationError("--idle-exit must be between 1 and 86400 seconds") }
        }

        func run() async throws {
            try await Console.run(options) {
                guard status else { return try await UnlockWindows.runAgent(idleSeconds: idleExit, logToFile: logFile, notice: Console.notice) }
                guard let (scope, windows) = try UnlockWindows.status() else {
                    return Console.emit(options, json: .object(["agent": .bool(false), "windows": .array([])]), text: "no agent runs: no unlock window is open")
                }
                let rows: [JSONValue] = windows.map {
                    .object(["service": .string($0.service), "policy": .string($0.policy), "remainingSeconds": .integer(Int64($0.remainingSeconds))])
                }
                var lines = ["terminal: \(scope ?? "none (no controlling terminal: no window)")"]
                lines += windows.map { "open: service '\($0.service)' (\($0.policy)), \($0.remainingSeconds) s left" }
                if windows.isEmpty { lines.append("no unlock window is open for this terminal") }
                Console.emit(
                    options, json: .object(["agent": .bool(true), "terminal": scope.map { .string($0) } ?? .null, "windows": .array(rows)]),
                    text: lines.joined(separator: "\n"))
            }
        }
    }

    /// `lock`: closes every unlock window.
    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lock",
            abstract: "Close every unlock window now, the agent's and the vault service's: the next read of a protected item prompts again.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                var closed = try UnlockWindows.lockAll()
                #if os(Linux)
                closed += try VaultServiceControls.lock()
                #endif
                Console.emit(options, json: .object(["closed": .integer(Int64(closed))]), text: "closed \(closed) unlock window(s)")
            }
        }
    }
}
