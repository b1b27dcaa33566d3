import BiometricsVaultCore
import BiometricsVaultJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// git's credential helper operations on the vault (`biometrics-vault git-credential` only reads stdin
/// and prints).
///
/// Items are read as any JSON: an item under a git key that the helper did not write (made by hand with
/// `store`, or another program's JSON) is *foreign*. `get` never answers with a foreign item and tries the
/// next match; `store` replaces a plain foreign item under the exact key git approved (git now uses that
/// credential, and a foreign item there could never be answered); `erase` leaves foreign items alone (the
/// helper never gave them to git). A protected item is only unlocked by `get`.
package struct GitCredentialHelper: Sendable {
    package let configuration: VaultConfiguration
    /// Seconds since the epoch, for `password_expiry_utc`.
    package var now: @Sendable () -> Int64 = { Int64(time(nil)) }

    package init(configuration: VaultConfiguration) {
        self.configuration = configuration
    }

    /// How often `store` and `erase` start again after another process changed the item between their read
    /// and their write (git runs helpers concurrently when several commands approve at once).
    package static let raceAttempts = 8

    private func keys() throws -> [String] {
        try configuration.store.keys(service: configuration.service).filter(GitCredentialKey.isKey)
    }

    private func vault(_ key: String) throws -> Vault<JSONValue> {
        try VaultFactory<JSONValue>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }

    /// The protocol lines of the best stored match (unlocking it: one prompt), or `nil` when nothing matches.
    /// Expired credentials (`password_expiry_utc` in the past) and foreign items are passed over.
    package func get(_ request: GitCredentialRequest) async throws -> String? {
        for key in GitCredentialKey.matches(request, among: try keys()) {
            let vault: Vault<JSONValue>
            do {
                vault = try self.vault(key)
            } catch let error as VaultError where error.code == .corruptedItem {
                continue
            }
            let readable: Vault<JSONValue>
            switch vault.kind {
            case .empty: continue
            case .locked: readable = try await vault.unlock()
            case .keychain, .biometrics: readable = vault
            }
            guard let item = GitCredentialItem(json: try readable.credentials), item.answers(request),
                !item.isExpired(now: now())
            else { continue }
            guard let text = item.protocolText else {
                throw CredentialHelperInputError("the item '\(key)' holds a value that is not one protocol line")
            }
            return text
        }
        return nil
    }

    /// Stores what git approved (an empty username or password is stored too: SSO and token hosts). A plain
    /// item is replaced when it changed; a protected one is kept, since git stores after each success (also
    /// of a credential this helper answered) and checking would prompt. When another process writes the
    /// same key meanwhile, the read starts again: the last writer wins, and no race is reported as an error.
    package func store(_ request: GitCredentialRequest, biometrics: Bool) async throws {
        guard let item = request.item, item.username != nil, item.password != nil,
            let key = GitCredentialKey.key(for: request)
        else { return }
        let json = item.json
        try await retryingRaces {
            let vault = try vault(key)
            switch vault.kind {
            case .empty:
                _ = biometrics ? try await vault.storeToBiometrics(credentials: json) : try vault.storeToKeychain(credentials: json)
            case .keychain:
                if GitCredentialItem(json: try vault.credentials) == item { return }
                _ = try await vault.update(credentials: json)
            case .locked, .biometrics:
                return
            }
        }
    }

    /// Erases the matching items (all usernames when git names none). When git sends the password, a
    /// plain item holding another password is kept (it was not the one rejected). Foreign items are kept.
    package func erase(_ request: GitCredentialRequest) async throws {
        for key in GitCredentialKey.matches(request, among: try keys()) {
            try await retryingRaces {
                let vault: Vault<JSONValue>
                do {
                    vault = try self.vault(key)
                } catch let error as VaultError where error.code == .corruptedItem {
                    return
                }
                switch vault.kind {
                case .empty: return
                case .keychain:
                    guard let stored = GitCredentialItem(json: try vault.credentials), stored.answers(request) else { return }
                    if let password = request.password, stored.password != password { return }
                case .locked, .biometrics: break
                }
                _ = try vault.reset()
            }
        }
    }

    /// Runs `body` again when it lost a race with another process on the same item (`invalidVault`:
    /// the item changed between the read and the conditional write), a bounded number of times.
    private func retryingRaces(_ body: () async throws -> Void) async throws {
        for attempt in 1...Self.raceAttempts {
            do {
                return try await body()
            } catch let error as VaultError where error.code == .invalidVault && attempt < Self.raceAttempts {
                // A few milliseconds, growing, so the processes that collided do not collide again.
                usleep(useconds_t(1_000 * attempt + Int.random(in: 0..<2_000)))
            }
        }
    }
}

extension GitCredentialItem {
    /// The helper's item in a stored JSON value, each attribute read as `show --field` and `exec --env`
    /// read a field (a number as its literal); `nil` for a foreign value: not an object with `protocol`
    /// and `host`, or an attribute that is an array or an object.
    package init?(json: JSONValue) {
        var foreign = false
        func attribute(_ name: String) -> String? {
            guard let value = json.member(named: name), value != .null else { return nil }
            if value.scalarText == nil { foreign = true }
            return value.scalarText
        }
        guard case .object = json, let scheme = attribute("protocol"), let host = attribute("host") else { return nil }
        self.init(
            scheme: scheme, host: host, path: attribute("path"), username: attribute("username"), password: attribute("password"),
            passwordExpiryUTC: attribute("password_expiry_utc"), oauthRefreshToken: attribute("oauth_refresh_token"))
        if foreign { return nil }
    }

    /// The item as the JSON object stored (members sorted by name; absent attributes left out).
    package var json: JSONValue {
        var members: [String: JSONValue] = ["protocol": .string(scheme), "host": .string(host)]
        let optional = [
            ("path", path), ("username", username), ("password", password), ("password_expiry_utc", passwordExpiryUTC),
            ("oauth_refresh_token", oauthRefreshToken),
        ]
        for case (let name, let value?) in optional { members[name] = .string(value) }
        return .object(members)
    }
}
