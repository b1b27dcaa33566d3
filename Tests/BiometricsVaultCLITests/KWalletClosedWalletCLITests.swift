#if os(Linux)
import Foundation
import Testing

/// The commands that never prompt, on a closed KWallet wallet (a kwalletd5 of their own, started by
/// scripts/setup/22-kwallet.sh): `status` and `list` ran the provider's unlock prompt, KWallet's password
/// dialog, and waited for it until the store's 5 s bound. They call neither `Unlock` nor a prompt now:
/// `storeLocked` at once.
@Suite(.enabled(if: CLIProvider.runnable.contains(.kwallet), "needs KWallet (scripts/setup/22-kwallet.sh)"))
struct KWalletClosedWalletCLITests {
    /// A private kwalletd5 on a bus of its own, its wallet open; stopped when released.
    final class PrivateKWallet {
        let address: String
        let sandbox: String

        init(_ sandbox: CLISandbox) throws {
            let envFile = sandbox.root.appendingPathComponent("kwallet-env").path
            var environment = ProcessInfo.processInfo.environment
            environment["BV_ENV_FILE"] = envFile
            let script = repositoryRoot().appendingPathComponent("scripts/setup/22-kwallet.sh").path
            let status = Self.run("/bin/bash", [script], environment: environment)
            guard status == 0 else { throw Failure(description: "22-kwallet.sh failed: \(String(describing: status))") }
            let lines = try String(contentsOfFile: envFile, encoding: .utf8).split(separator: "\n")
            func value(_ name: String) -> String? {
                lines.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
            }
            guard let address = value("BV_KWALLET_BUS_ADDRESS"), let directory = value("BV_KWALLET_SANDBOX") else {
                throw Failure(description: "22-kwallet.sh wrote no bus address")
            }
            self.address = address
            self.sandbox = directory
        }

        /// Closes the wallet as the user (or its idle timeout) would: `org.kde.KWallet.close(wallet, force)`.
        func close(_ sandbox: CLISandbox) throws {
            let arguments = [
                "call", "--session", "--dest", "org.kde.kwalletd5", "--object-path", "/modules/kwalletd5",
                "--method", "org.kde.KWallet.close", "kdewallet", "true",
            ]
            let status = Self.run("/usr/bin/gdbus", arguments, environment: sandbox.environment)
            guard status == 0 else { throw Failure(description: "KWallet.close failed: \(String(describing: status))") }
        }

        /// posix_spawn + waitpid, bounded (120 s), stdio on /dev/null. Not Foundation's `Process`, whose exit
        /// monitoring waits for the daemons the script leaves running; the child starts with no signal
        /// blocked (test threads block some), so the script can stop and restart kwalletd5. `nil`: no exit.
        static func run(_ executable: String, _ arguments: [String], environment: [String: String]) -> Int32? {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t(), allSignals = sigset_t()
            sigemptyset(&noSignals)
            sigfillset(&allSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, executable, &actions, &attributes, argv, envp) == 0 else { return nil }
            var status: Int32 = 0
            for _ in 0..<1200 {
                if waitpid(pid, &status, WNOHANG) == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil }
                usleep(100_000)
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return nil
        }

        deinit {
            for name in ["kwalletd.pid", "dbus.pid"] {
                if let text = try? String(contentsOfFile: "\(sandbox)/\(name)", encoding: .utf8),
                    let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
                {
                    kill(pid, SIGKILL)  // a daemon spawned from a test thread may have SIGTERM blocked
                }
            }
            try? FileManager.default.removeItem(atPath: sandbox)
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Runs "$@" under `dbus-monitor` on the session bus: prints the command's stdout, `exit=N`, its stderr,
    /// then `call INTERFACE.MEMBER` for each method call the monitor saw.
    static let monitoredRun = """
        log=$(mktemp); dbus-monitor --address "$DBUS_SESSION_BUS_ADDRESS" >"$log" 2>&1 </dev/null & monitor=$!
        for _ in $(seq 300); do grep -q member=NameLost "$log" && break; sleep 0.01; done
        "$@" 2>"$log.err"; code=$?
        # The bus hands the monitor messages in routing order: once it printed this marker, it printed every call before it.
        dbus-send --address="$DBUS_SESSION_BUS_ADDRESS" --type=signal /io/github/biometricsvault/Test io.github.biometricsvault.Test.Flushed
        for _ in $(seq 1000); do grep -q member=Flushed "$log" && break; sleep 0.01; done
        grep -q member=Flushed "$log" || echo "monitor-not-flushed"
        kill -KILL "$monitor"; wait "$monitor" 2>/dev/null  # the test threads' blocked SIGTERM is inherited
        echo "exit=$code"; cat "$log.err"
        sed -n 's/^method call .* interface=\\([^;]*\\); member=\\([^ ]*\\).*/call \\1.\\2/p' "$log"
        rm -f "$log" "$log.err"
        """

    @Test func neverPromptingCommandsReportAClosedWalletLockedWithoutAPrompt() throws {
        var sandbox = try CLISandbox(keepSessionBus: true)
        defer { sandbox.remove() }
        let wallet = try PrivateKWallet(sandbox)
        sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = wallet.address
        let service = "bv-cli-kwallet-closed"
        func cli(_ arguments: [String], stdin: String? = nil) throws -> CLIResult {
            try sandbox.run(arguments + ["--service", service, "--store", "secret-service", "--authenticator", "none"], stdin: stdin)
        }
        let stored = try cli(["store", "api", "--json"], stdin: #"{"token":"t"}"#)
        try #require(stored.status == 0, "\(stored.stderr)")
        // Open and unlocked by the write: status reads it.
        let open = try cli(["status", "api", "--json"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stdout.jsonObject?["state"] as? String == "keychain", "\(open.stdout)")

        try wallet.close(sandbox)

        var doctorOutput = ""
        // dbus-monitor on the wallet's bus sees every call a command makes there: none may be an
        // `Unlock` (KWallet answers it with its password dialog) or a call on a prompt object.
        for arguments in [["status", "api"], ["list"], ["doctor", "--json"]] {
            let isDoctor = arguments[0] == "doctor"
            let watched = try sandbox.run(
                executable: URL(fileURLWithPath: "/bin/bash"),
                ["-c", Self.monitoredRun, "sh", CLISandbox.binary.path]
                    + arguments + (isDoctor ? [] : ["--service", service, "--store", "secret-service", "--authenticator", "none"]))
            let calls = watched.stdout.split(separator: "\n").filter { $0.hasPrefix("call ") }
            #expect(!watched.stdout.contains("monitor-not-flushed"), "dbus-monitor fell behind: \(watched.stdout)")
            #expect(calls.contains { $0.hasSuffix(".SearchItems") || $0.hasSuffix(".Get") }, "\(arguments[0]) was not seen: \(watched.stdout)")
            #expect(!calls.contains { $0.hasSuffix(".Unlock") || $0.contains("org.freedesktop.Secret.Prompt.") }, "\(arguments[0]): \(calls)")
            if isDoctor {
                doctorOutput = watched.stdout.components(separatedBy: "exit=")[0]
            } else {
                #expect(watched.stdout.contains("exit=7"), "\(arguments[0]): \(watched.stdout)")
                #expect(watched.stdout.contains("[storeLocked]"), "\(arguments[0]): \(watched.stdout)")
            }
        }
        let components = try #require(doctorOutput.jsonObject?["components"] as? [[String: Any]], "\(doctorOutput)")
        let secretService = try #require(components.first { $0["name"] as? String == "secret-service" })
        #expect(secretService["isUsable"] as? Bool == false)
        #expect(secretService["errorCode"] as? String == "storeLocked", "\(secretService)")
    }
}
#endif
