import ArgumentParser
import BiometricsVault
#if os(Linux)
import BiometricsVaultAgent
import BiometricsVaultProcess
import BiometricsVaultService
import Glibc
#endif

extension BiometricsVaultCommand {
    /// `ssh-agent`: an SSH agent whose keys live in the vault service (Docs/SSHAgent.md).
    struct SSHAgentCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ssh-agent",
            abstract: "Run an SSH agent whose keys live in the vault service: each signature is the service's check of the key's policy.",
            discussion: """
                Listens on $XDG_RUNTIME_DIR/biometrics-vault/ssh-agent.sock (or --socket) for this user's \
                processes only; point SSH_AUTH_SOCK there. `ssh-add FILE` hands the key to the vault service, \
                which keeps it from then on (give it --policy); `ssh-add -d` and `-D` delete the keys added \
                that way, never a key made by `ssh-key generate`. Under systemd the package's user socket \
                unit starts it on the first connection. With --print-env it makes sure an agent listens \
                (starting one in the background) and prints the line for a shell: \
                eval "$(biometrics-vault ssh-agent --print-env)".
                """)

        @Option(help: ArgumentHelp("The socket to listen on.", valueName: "path"))
        var socket: String?

        @Option(help: "The policy of keys added with ssh-add: biometryAny, biometryCurrentSet, userPresence, devicePasscode or none.")
        var policy = "biometryAny"

        @Option(help: ArgumentHelp("After a check, the same key signs for this agent without asking for this many seconds (0: every signature asks; a key added with ssh-add -c always asks).", valueName: "seconds"))
        var window: UInt32 = 0

        @Flag(name: .customLong("print-env"), help: "Start an agent in the background unless one listens, and print SSH_AUTH_SOCK for a shell.")
        var printEnv = false

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            #if os(Linux)
            guard VaultServiceSSHKeys.policies.contains(policy) else {
                throw ValidationError("--policy is one of \(VaultServiceSSHKeys.policies.joined(separator: ", "))")
            }
            #endif
            guard window <= 86_400 else { throw ValidationError("--window is at most 86400 seconds") }
        }

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                guard let path = socket ?? Self.defaultSocketPath() else {
                    throw VaultError(.storeUnavailable, underlying: .message("no XDG_RUNTIME_DIR: say where to listen with --socket"))
                }
                if printEnv { return try printEnvironment(path) }
                let listener = try Self.activatedListener() ?? SSHAgent.listen(at: path)
                let agent = SSHAgent(policy: policy, windowSeconds: window) { Console.notice("ssh-agent: \($0)") }
                try await DedicatedThread.run(name: "ssh-agent") { () throws(VaultError) in agent.serve(listener: listener) }
                #else
                throw VaultError(.storeUnavailable, underlying: .message("the SSH agent is Linux only"))
                #endif
            }
        }

        #if os(Linux)
        /// Where the agent of this user listens by default: `$XDG_RUNTIME_DIR/biometrics-vault/ssh-agent.sock`,
        /// beside the unlock-window agent's socket.
        static func defaultSocketPath() -> String? {
            AgentPaths.current().map { $0.directory + "/ssh-agent.sock" }
        }

        /// The socket systemd passed (socket activation: `LISTEN_PID` is this process, `LISTEN_FDS` 1).
        static func activatedListener() -> Int32? {
            guard let pid = getenv("LISTEN_PID").flatMap({ Int32(String(cString: $0)) }), pid == getpid(),
                let count = getenv("LISTEN_FDS").flatMap({ Int(String(cString: $0)) }), count >= 1
            else { return nil }
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
            _ = fcntl(3, F_SETFD, FD_CLOEXEC)
            return 3
        }

        /// Makes sure an agent listens at `path`, then prints the shell's line.
        private func printEnvironment(_ path: String) throws {
            func listening() -> Bool {
                guard case .success(let descriptor) = UnixSocket.connect(to: path, timeout: 1) else { return false }
                close(descriptor)
                return true
            }
            if !listening() {
                guard let executable = DetachedProcess.currentExecutable() else {
                    throw VaultError(.storeUnavailable, underlying: .message("cannot find this program to start the agent"))
                }
                try DetachedProcess.start(
                    executable: executable, arguments: ["ssh-agent", "--socket", path, "--policy", policy, "--window", String(window)])
                var waited = 0
                while !listening() {
                    guard waited < 100 else { throw VaultError(.storeUnavailable, underlying: .message("the agent did not start listening on \(path)")) }
                    usleep(50_000)
                    waited += 1
                }
            }
            Console.out("SSH_AUTH_SOCK=\(Self.shellQuoted(path)); export SSH_AUTH_SOCK;")
        }

        static func shellQuoted(_ text: String) -> String { "'" + text.map { $0 == "'" ? #"'\''"# : String($0) }.joined() + "'" }
        #endif
    }
}
