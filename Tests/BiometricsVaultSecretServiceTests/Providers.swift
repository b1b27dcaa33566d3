#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Testing

extension SecretServiceProvider {
    /// A store on the provider's bus; a clear failure when the provider is missing.
    func store(prompts: SecretServicePrompts = .complete, timeout: Duration = .seconds(5)) throws -> SecretServiceStore {
        try SecretServiceStore(busAddress: try requireAddress(), timeout: timeout, prompts: prompts)
    }
}

/// python `keyring` on a provider's bus: reads and writes with names and values on stdin, never argv.
enum PythonKeyring {
    static func get(service: String, username: String, environment: [String: String]) async throws -> String? {
        let script = pythonKeyringCall + """
            import sys, keyring
            service, username = sys.stdin.read().split("\\n")[:2]
            value = keyring_call(lambda: keyring.get_password(service, username))
            sys.stdout.write("NONE" if value is None else "VALUE:" + value)
            """
        let result = try await Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n", environment: environment)
        guard result.status == 0 else { throw TestFailure("python keyring failed: \(result.stderr)") }
        if result.stdout == "NONE" { return nil }
        guard result.stdout.hasPrefix("VALUE:") else { throw TestFailure("unexpected python output") }
        return String(result.stdout.dropFirst("VALUE:".count))
    }

    static func set(service: String, username: String, value: String, environment: [String: String]) async throws {
        let script = pythonKeyringCall + """
            import sys, keyring
            service, username, value = sys.stdin.read().split("\\n")[:3]
            keyring_call(lambda: keyring.set_password(service, username, value))
            """
        let result = try await Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n\(value)\n", environment: environment)
        guard result.status == 0 else { throw TestFailure("python keyring set failed: \(result.stderr)") }
    }

    static func delete(service: String, username: String, environment: [String: String]) async {
        let script = """
            import sys, keyring
            service, username = sys.stdin.read().split("\\n")[:2]
            keyring.delete_password(service, username)
            """
        _ = try? await Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n", environment: environment)
    }
}
#endif
