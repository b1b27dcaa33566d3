import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BiometricsVaultCommand {
    /// `git-credential get|store|erase`: git's credential helper protocol over the vault.
    struct GitCredential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "git-credential",
            abstract: "A git credential helper: get, store and erase what git asks for (see gitcredentials(7)).",
            discussion: """
                Set it up with `git config --global credential.helper biometrics-vault` (git then runs the \
                installed `git-credential-biometrics-vault` link), or `credential.helper 'biometrics-vault \
                --biometrics'` to keep new credentials behind your fingerprint. Items are keyed \
                git:PROTOCOL:USERNAME@HOST[:PATH] (`list` shows them). stdout carries protocol lines only; \
                on an error or a cancel `get` prints nothing, and git asks for the password itself. A \
                protected item that already exists is kept as it is by `store` (git stores after every \
                success; no second prompt); `erase`, which git runs when a password is rejected, removes it.
                """)

        /// The helper operations. git may add operations: an unknown one is ignored, as gitcredentials(7)
        /// asks, so it is matched here rather than refused by the parser.
        enum Operation: String, CaseIterable, Sendable {
            case get, store, erase
        }

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Store new credentials behind the fingerprint (or, with --authenticator pam/polkit, the login password).")
        var biometrics = false

        @Argument(help: ArgumentHelp("get, store or erase (git passes it; others are ignored).", valueName: "operation"))
        var operation: String

        func run() async throws {
            guard let operation = Operation(rawValue: operation) else { return }
            // git may close the pipe early; a write then fails instead of killing the helper.
            signal(SIGPIPE, SIG_IGN)
            let biometrics = biometrics
            try await Console.run(options) {
                let request = try GitCredentialRequest.readStandardInput()
                guard request.scheme != nil else { return }
                // git compares the helper's stderr in its own suite: nothing there unless something failed.
                let session = Session(options: options, announcesStore: false)
                let helper = GitCredentialHelper(configuration: session.configuration)
                switch operation {
                case .get:
                    try await Interrupts.cancellingOnInterrupt {
                        guard let text = try await helper.get(request) else { return }
                        RawOutput.put(text, to: STDOUT_FILENO)
                    }
                case .store:
                    try await Interrupts.cancellingOnInterrupt {
                        try await helper.store(request, biometrics: biometrics)
                    }
                case .erase:
                    try await helper.erase(request)
                }
            }
        }
    }
}

/// The helper's operations on the vault (the command above only reads stdin and prints).
///
/// Items are read as any JSON: an item under a git key that the helper did not write (made by hand with
/// `store`, or another program's JSON) is *foreign*. `get` never answers with a foreign item and tries the
/// next match; `store` replaces a plain foreign item under the exact key git approved (git now uses that
/// credential, and a foreign item there could never be answered); `erase` leaves foreign items alone (the
/// helper never gave them to git). A protected item is only unlocked by `get`.
struct GitCredentialHelper: Sendable {
    let configuration: VaultConfiguration
    /// Seconds since the epoch, for `password_expiry_utc`.
    var now: @Sendable () -> Int64 = { Int64(time(nil)) }

    /// How often `store` and `erase` start again after another process changed the item between their read
    /// and their write (git runs helpers concurrently when several commands approve at once).
    static let raceAttempts = 8

    private func keys() throws -> [String] {
        try configuration.store.keys(service: configuration.service).filter { $0.hasPrefix(GitCredentialKey.prefix) }
    }

    private func vault(_ key: String) throws -> Vault<JSONValue> {
        try VaultFactory<JSONValue>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }

    /// The protocol lines of the best stored match (unlocking it: one prompt), or `nil` when nothing matches.
    /// Expired credentials (`password_expiry_utc` in the past) and foreign items are passed over.
    func get(_ request: GitCredentialRequest) async throws -> String? {
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
                throw CLIFailure.badInput("the item '\(key)' holds a value that is not one protocol line")
            }
            return text
        }
        return nil
    }

    /// Stores what git approved (an empty username or password is stored too: SSO and token hosts). A plain
    /// item is replaced when it changed; a protected one is kept, since git stores after each success (also
    /// of a credential this helper answered) and checking would prompt. When another process writes the
    /// same key meanwhile, the read starts again: the last writer wins, and no race is reported as an error.
    func store(_ request: GitCredentialRequest, biometrics: Bool) async throws {
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
    func erase(_ request: GitCredentialRequest) async throws {
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
    init?(json: JSONValue) {
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
    var json: JSONValue {
        var members: [String: JSONValue] = ["protocol": .string(scheme), "host": .string(host)]
        let optional = [
            ("path", path), ("username", username), ("password", password), ("password_expiry_utc", passwordExpiryUTC),
            ("oauth_refresh_token", oauthRefreshToken),
        ]
        for case (let name, let value?) in optional { members[name] = .string(value) }
        return .object(members)
    }
}

/// The verb name and the helper link's name.
enum GitCredentialVerb {
    static let name = BiometricsVaultCommand.GitCredential.configuration.commandName ?? "git-credential"
    static let helperName = "git-credential-biometrics-vault"
}
