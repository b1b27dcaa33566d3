// The Secret Service providers the setup scripts start: Linux only.
#if os(Linux)
import Foundation
import Glibc
import Testing

/// A real Secret Service provider that a setup script starts on a bus of its own
/// (scripts/setup/20-secret-service.sh, 21-keepassxc.sh, 22-kwallet.sh).
package enum SecretServiceProvider: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case gnomeKeyring = "gnome-keyring"
    case keepassxc = "KeePassXC"
    case kwallet = "KWallet"

    package var testDescription: String { rawValue }

    /// The environment variable the setup script appends the provider's bus address under.
    package var addressVariable: String {
        switch self {
        case .gnomeKeyring: "DBUS_SESSION_BUS_ADDRESS"
        case .keepassxc: "BV_KEEPASSXC_BUS_ADDRESS"
        case .kwallet: "BV_KWALLET_BUS_ADDRESS"
        }
    }

    package var setupScript: String {
        switch self {
        case .gnomeKeyring: "scripts/setup/20-secret-service.sh"
        case .keepassxc: "scripts/setup/21-keepassxc.sh"
        case .kwallet: "scripts/setup/22-kwallet.sh"
        }
    }

    package var address: String? { ProcessInfo.processInfo.environment[addressVariable].flatMap { $0.isEmpty ? nil : $0 } }

    /// The providers a provider-parameterised test runs on: those whose setup ran, or all of them when
    /// `BV_REQUIRE_DAEMONS=1` (then a missing one fails where the test asks for its address).
    package static let runnable: [SecretServiceProvider] = Daemons.required ? allCases : allCases.filter { $0.address != nil }
    /// ``runnable`` without gnome-keyring (whose suite runs on the session bus already).
    package static var others: [SecretServiceProvider] { runnable.filter { $0 != .gnomeKeyring } }

    /// The provider as a need of a whole suite.
    package var need: DaemonNeed {
        DaemonNeed(rawValue, remedy: setupScript, problem: address == nil ? "\(addressVariable) is not set" : nil)
    }

    /// The provider's bus address; a clear failure when it is missing.
    package func requireAddress() throws -> String {
        guard let address else { throw TestFailure("\(rawValue) is not running: \(addressVariable) is not set (run \(setupScript))") }
        return address
    }

    /// The environment for a program (python keyring, secret-tool, the CLI) that talks to this provider.
    package func environment() throws -> [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": try requireAddress()]
    }
}

/// Python code defining `keyring_call(f)`: `f()` (a python `keyring` call), made again on a failure or an
/// empty answer, at most three times in all.
///
/// Why: python `keyring` (secretstorage) and kwalletd5 disagree on the session key in about one session
/// in 170 (kwalletd5 reads the client's key as a signed number and hashes the shared secret without its
/// leading zero bytes: see SessionEncryption.swift). kwalletd5 then refuses a secret sent in it ("Can't
/// find session"), and a secret read in it decrypts to garbage, most often to an empty string. Each
/// `keyring` call opens a new session, which agrees again; the tests never store an empty value.
package let pythonKeyringCall = """
    def keyring_call(f):
        for attempt in range(3):
            try:
                value = f()
                if value != "" or attempt == 2:
                    return value
            except Exception:
                if attempt == 2:
                    raise

    """

/// A KWallet of its own (scripts/setup/22-kwallet.sh run again into a private environment file), for
/// tests that close the wallet: the shared one serves other tests at the same time.
package final class PrivateKWallet {
    package let address: String
    package let sandbox: String

    package init() async throws {
        let envFile = try TestScratch.newDirectory("kwallet-env").appendingPathComponent("env").path
        let script = repositoryRoot().appendingPathComponent("scripts/setup/22-kwallet.sh").path
        // Stdio on /dev/null: the daemons the script leaves running would hold a captured pipe open.
        let status = await Shell.status("/bin/bash", [script], environment: ["BV_ENV_FILE": envFile])
        guard status == 0 else { throw TestFailure("22-kwallet.sh failed: exit \(status.map(String.init) ?? "none")") }
        let lines = try String(contentsOfFile: envFile, encoding: .utf8).split(separator: "\n")
        func value(_ name: String) -> String? {
            lines.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        guard let address = value("BV_KWALLET_BUS_ADDRESS"), let sandbox = value("BV_KWALLET_SANDBOX") else {
            throw TestFailure("22-kwallet.sh wrote no bus address")
        }
        self.address = address
        self.sandbox = sandbox
    }

    package var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Closes the wallet as the user (or its idle timeout) would: `org.kde.KWallet.close(wallet, force)`.
    package func close() async throws {
        let result = try await Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.kde.kwalletd5", "--object-path", "/modules/kwalletd5",
             "--method", "org.kde.KWallet.close", "kdewallet", "true"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("KWallet.close failed: \(result.stderr)") }
    }

    /// Restarts kwalletd5 and opens the wallet: after a password dialog nobody answered (and the store
    /// dismissed), kwalletd5 keeps the dialog pending and ignores pamOpen until it is restarted.
    package func restartAndOpen() async throws {
        let script = """
            kill "$(cat "$0/kwalletd.pid")"
            while kill -0 "$(cat "$0/kwalletd.pid")" 2>/dev/null; do sleep 0.05; done
            export XDG_CONFIG_HOME="$0/config" XDG_DATA_HOME="$0/data" XDG_RUNTIME_DIR="$0/run" QT_QPA_PLATFORM=offscreen
            kwalletd5 >>"$0/kwalletd.log" 2>&1 </dev/null &
            echo $! >"$0/kwalletd.pid"
            gdbus wait --session --timeout 15 org.kde.kwalletd5 && gdbus wait --session --timeout 15 org.freedesktop.secrets
            """
        let result = try await Shell.run("/bin/bash", ["-c", script, sandbox], environment: environment)
        guard result.status == 0 else { throw TestFailure("kwalletd5 did not restart: \(result.stderr)") }
        try await open()
    }

    /// Opens the wallet again the way pam_kwallet does (the key the setup script derived).
    package func open() async throws {
        let key = try String(contentsOfFile: "\(sandbox)/wallet.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try await Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.kde.kwalletd5", "--object-path", "/modules/kwalletd5",
             "--method", "org.kde.KWallet.pamOpen", "kdewallet", key, "0"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("KWallet.pamOpen failed: \(result.stderr)") }
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
#endif
