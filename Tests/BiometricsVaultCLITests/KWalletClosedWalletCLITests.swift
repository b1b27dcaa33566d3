#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The commands that never prompt, on a closed KWallet wallet (a kwalletd5 of their own, started by
/// scripts/setup/22-kwallet.sh): `status` and `list` ran the provider's unlock prompt, KWallet's password
/// dialog, and waited for it until the store's 5 s bound. They call neither `Unlock` nor a prompt now:
/// `storeLocked` at once.
@Suite(.onTestThreads, .needs(SecretServiceProvider.kwallet.need))
struct KWalletClosedWalletCLITests {
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

    @Test func neverPromptingCommandsReportAClosedWalletLockedWithoutAPrompt() async throws {
        var sandbox = try CLISandbox(keepSessionBus: true)
        defer { sandbox.remove() }
        let wallet = try await PrivateKWallet()
        sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = wallet.address
        let service = "bv-cli-kwallet-closed"
        func cli(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
            try await sandbox.run(arguments + ["--service", service, "--store", "secret-service", "--authenticator", "none"], stdin: stdin)
        }
        let stored = try await cli(["store", "api", "--json"], stdin: #"{"token":"t"}"#)
        try #require(stored.status == 0, "\(stored.stderr)")
        // Open and unlocked by the write: status reads it.
        let open = try await cli(["status", "api", "--json"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stdout.jsonObject?["state"] as? String == "keychain", "\(open.stdout)")

        try await wallet.close()

        var doctorOutput = ""
        // dbus-monitor on the wallet's bus sees every call a command makes there: none may be an
        // `Unlock` (KWallet answers it with its password dialog) or a call on a prompt object.
        for arguments in [["status", "api"], ["list"], ["doctor", "--json"]] {
            let isDoctor = arguments[0] == "doctor"
            let watched = try await sandbox.run(
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
