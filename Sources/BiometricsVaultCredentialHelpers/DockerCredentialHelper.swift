import BiometricsVaultCore
import BiometricsVaultJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The docker helper's operations on the vault (`biometrics-vault docker-credential` only reads stdin
/// and prints).
///
/// An item under a docker key that is not this helper's object (made by hand) is *foreign*: `get` answers
/// it as not found, `store` replaces a plain one, `erase` deletes it (the client asked to log out of
/// that server). A protected item is unlocked (one prompt) by `get` and by a `store` that changes it.
package struct DockerCredentialHelper: Sendable {
    package let configuration: VaultConfiguration

    package init(configuration: VaultConfiguration) {
        self.configuration = configuration
    }

    private func vault(_ key: String) throws -> Vault<JSONValue> {
        try VaultFactory<JSONValue>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }

    /// The JSON answer for `serverURL`, or `nil` when nothing (of this helper's) is stored for it.
    package func get(serverURL: String) async throws -> String? {
        let vault = try vault(DockerCredentialKey.key(serverURL: serverURL))
        let readable: Vault<JSONValue>
        switch vault.kind {
        case .empty: return nil
        case .locked: readable = try await vault.unlock()
        case .keychain, .biometrics: readable = vault
        }
        guard let item = DockerCredentialItem(stored: try readable.credentials), item.serverURL == serverURL else { return nil }
        let answer: JSONValue = .object([
            JSONMember(name: JSONString("ServerURL"), value: .string(item.serverURL)),
            JSONMember(name: JSONString("Username"), value: .string(item.username)),
            JSONMember(name: JSONString("Secret"), value: .string(item.secret)),
        ])
        return answer.jsonText + "\n"
    }

    /// Stores (or replaces) the credentials of a server. When another process writes the same key
    /// meanwhile, the read starts again: the last writer wins.
    package func store(_ item: DockerCredentialItem) async throws {
        let key = DockerCredentialKey.key(serverURL: item.serverURL)
        for attempt in 1...GitCredentialHelper.raceAttempts {
            do {
                let vault = try vault(key)
                switch vault.kind {
                case .empty:
                    _ = try vault.storeToKeychain(credentials: item.json)
                case .keychain:
                    if DockerCredentialItem(stored: try vault.credentials) == item { return }
                    _ = try await vault.update(credentials: item.json)
                case .locked:
                    let unlocked = try await vault.unlock()
                    if DockerCredentialItem(stored: try unlocked.credentials) == item { return }
                    _ = try await unlocked.update(credentials: item.json)
                case .biometrics:
                    if DockerCredentialItem(stored: try vault.credentials) == item { return }
                    _ = try await vault.update(credentials: item.json)
                }
                return
            } catch let error as VaultError where error.code == .invalidVault && attempt < GitCredentialHelper.raceAttempts {
                usleep(useconds_t(1_000 * attempt + Int.random(in: 0..<2_000)))
            }
        }
    }

    /// Deletes the server's item, without prompting; `false` when nothing was stored.
    package func erase(serverURL: String) async throws -> Bool {
        let vault = try vault(DockerCredentialKey.key(serverURL: serverURL))
        switch vault.kind {
        case .empty: return false
        case .keychain, .biometrics, .locked:
            _ = try vault.reset()
            return true
        }
    }

    /// `{"SERVER-URL":"USERNAME",...}` for every docker item. Never prompts: a protected item is listed
    /// with the server URL its key spells and an empty username (reading the username would take a finger).
    package func list() throws -> String {
        var members: [String: JSONValue] = [:]
        let keys = try configuration.store.keys(service: configuration.service).filter(DockerCredentialKey.isKey)
        for key in keys {
            guard let vault = try? vault(key) else { continue }
            switch vault.kind {
            case .empty: continue
            case .keychain, .biometrics:
                guard let item = DockerCredentialItem(stored: try vault.credentials) else { continue }
                members[item.serverURL] = .string(item.username)
            case .locked:
                guard let serverURL = DockerCredentialKey.serverURL(inKey: key) else { continue }
                members[serverURL] = .string("")
            }
        }
        return JSONValue.object(members).jsonText
    }
}
