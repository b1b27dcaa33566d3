#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import Foundation
import Testing

/// A real Secret Service provider that a setup script starts on a bus of its own
/// (scripts/setup/20-secret-service.sh, 21-keepassxc.sh, 22-kwallet.sh).
enum Provider: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case gnomeKeyring = "gnome-keyring"
    case keepassxc = "KeePassXC"
    case kwallet = "KWallet"

    var testDescription: String { rawValue }

    /// The environment variable the setup script appends the provider's bus address under.
    var addressVariable: String {
        switch self {
        case .gnomeKeyring: "DBUS_SESSION_BUS_ADDRESS"
        case .keepassxc: "BV_KEEPASSXC_BUS_ADDRESS"
        case .kwallet: "BV_KWALLET_BUS_ADDRESS"
        }
    }

    var setupScript: String {
        switch self {
        case .gnomeKeyring: "scripts/setup/20-secret-service.sh"
        case .keepassxc: "scripts/setup/21-keepassxc.sh"
        case .kwallet: "scripts/setup/22-kwallet.sh"
        }
    }

    var address: String? { ProcessInfo.processInfo.environment[addressVariable].flatMap { $0.isEmpty ? nil : $0 } }

    /// Whether the provider answers, unlocked or locked in the way it always starts (KWallet reports an
    /// open wallet locked until a client unlocks it).
    var isAvailable: Bool {
        guard let address else { return false }
        switch SecretServiceStore.probe(busAddress: address, timeout: .seconds(2)) {
        case .available, .locked: return true
        case .unavailable: return false
        }
    }

    /// The providers a provider-parameterised test runs on: those that answer, or all of them when
    /// `BV_REQUIRE_DAEMONS=1` (then a missing one fails in ``store(prompts:timeout:)``).
    static let runnable: [Provider] = Daemon.required ? allCases : allCases.filter(\.isAvailable)
    /// ``runnable`` without gnome-keyring (whose suite runs on the session bus already).
    static var others: [Provider] { runnable.filter { $0 != .gnomeKeyring } }

    /// A store on the provider's bus; a clear failure when the provider is missing.
    func store(prompts: SecretServicePrompts = .complete, timeout: Duration = .seconds(5)) throws -> SecretServiceStore {
        guard let address else {
            throw TestFailure("\(rawValue) is not running: \(addressVariable) is not set (run \(setupScript))")
        }
        return try SecretServiceStore(busAddress: address, timeout: timeout, prompts: prompts)
    }

    /// The environment for a program (python keyring, secret-tool, the CLI) that talks to this provider.
    func environment() throws -> [String: String] {
        guard let address else { throw TestFailure("\(rawValue) is not running (run \(setupScript))") }
        return ["DBUS_SESSION_BUS_ADDRESS": address]
    }
}

/// A KWallet of its own (scripts/setup/22-kwallet.sh run again into a private environment file), for
/// tests that close the wallet: the shared one serves other tests at the same time.
final class PrivateKWallet {
    let address: String
    let sandbox: String

    init() throws {
        let envFile = NSTemporaryDirectory() + "bv-kwallet-env-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: envFile) }
        let script = repositoryRoot() + "/scripts/setup/22-kwallet.sh"
        let result = try Shell.run("/bin/bash", [script], environment: ["BV_ENV_FILE": envFile])
        guard result.status == 0 else { throw TestFailure("22-kwallet.sh failed: \(result.stderr)") }
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

    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Closes the wallet as the user (or its idle timeout) would: `org.kde.KWallet.close(wallet, force)`.
    func close() throws {
        let result = try Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.kde.kwalletd5", "--object-path", "/modules/kwalletd5",
             "--method", "org.kde.KWallet.close", "kdewallet", "true"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("KWallet.close failed: \(result.stderr)") }
    }

    /// Restarts kwalletd5 and opens the wallet: after a password dialog nobody answered (and the store
    /// dismissed), kwalletd5 keeps the dialog pending and ignores pamOpen until it is restarted.
    func restartAndOpen() throws {
        let script = """
            kill "$(cat "$0/kwalletd.pid")"
            while kill -0 "$(cat "$0/kwalletd.pid")" 2>/dev/null; do sleep 0.05; done
            export XDG_CONFIG_HOME="$0/config" XDG_DATA_HOME="$0/data" XDG_RUNTIME_DIR="$0/run" QT_QPA_PLATFORM=offscreen
            kwalletd5 >>"$0/kwalletd.log" 2>&1 </dev/null &
            echo $! >"$0/kwalletd.pid"
            gdbus wait --session --timeout 15 org.kde.kwalletd5 && gdbus wait --session --timeout 15 org.freedesktop.secrets
            """
        let result = try Shell.run("/bin/bash", ["-c", script, sandbox], environment: environment)
        guard result.status == 0 else { throw TestFailure("kwalletd5 did not restart: \(result.stderr)") }
        try open()
    }

    /// Opens the wallet again the way pam_kwallet does (the key the setup script derived).
    func open() throws {
        let key = try String(contentsOfFile: "\(sandbox)/wallet.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.kde.kwalletd5", "--object-path", "/modules/kwalletd5",
             "--method", "org.kde.KWallet.pamOpen", "kdewallet", key, "0"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("KWallet.pamOpen failed: \(result.stderr)") }
    }

    deinit {
        for name in ["kwalletd.pid", "dbus.pid"] {
            if let pid = try? String(contentsOfFile: "\(sandbox)/\(name)", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) {
                _ = try? Shell.run("kill", [pid])
            }
        }
        try? FileManager.default.removeItem(atPath: sandbox)
    }
}

/// The package's root directory (this file is Tests/BiometricsVaultSecretServiceTests/Providers.swift).
func repositoryRoot(file: StaticString = #filePath) -> String {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// python `keyring` on a provider's bus: reads and writes with names and values on stdin, never argv.
enum PythonKeyring {
    static func get(service: String, username: String, environment: [String: String]) throws -> String? {
        let script = """
            import sys, keyring
            service, username = sys.stdin.read().split("\\n")[:2]
            value = keyring.get_password(service, username)
            sys.stdout.write("NONE" if value is None else "VALUE:" + value)
            """
        let result = try Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n", environment: environment)
        guard result.status == 0 else { throw TestFailure("python keyring failed: \(result.stderr)") }
        if result.stdout == "NONE" { return nil }
        guard result.stdout.hasPrefix("VALUE:") else { throw TestFailure("unexpected python output") }
        return String(result.stdout.dropFirst("VALUE:".count))
    }

    static func set(service: String, username: String, value: String, environment: [String: String]) throws {
        let script = """
            import sys, keyring
            service, username, value = sys.stdin.read().split("\\n")[:3]
            keyring.set_password(service, username, value)
            """
        let result = try Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n\(value)\n", environment: environment)
        guard result.status == 0 else { throw TestFailure("python keyring set failed: \(result.stderr)") }
    }

    static func delete(service: String, username: String, environment: [String: String]) {
        let script = """
            import sys, keyring
            service, username = sys.stdin.read().split("\\n")[:2]
            keyring.delete_password(service, username)
            """
        _ = try? Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n", environment: environment)
    }
}
#endif
