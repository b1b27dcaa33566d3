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
    /// `docker-credential get|store|erase|list|version`: docker's credential-helpers protocol over the vault.
    struct DockerCredential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "docker-credential",
            abstract: "A docker credential helper: get, store, erase, list (docker-credential-helpers protocol).",
            discussion: """
                Set it up with `"credsStore": "biometrics-vault"` or `"credHelpers": {"REGISTRY": \
                "biometrics-vault"}` in ~/.docker/config.json (or a containers auth.json): docker, podman, \
                skopeo and buildah then run the installed `docker-credential-biometrics-vault` link. Items \
                are keyed docker:SERVER-URL (`list` shows them); `biometrics-vault upgrade KEY` puts one \
                behind your fingerprint. stdout carries the protocol only; a server with nothing stored \
                answers `credentials not found in native keychain` with exit status 1.
                """)

        enum Action: String, CaseIterable, Sendable {
            case get, store, erase, list, version
        }

        @OptionGroup var options: GlobalOptions

        @Argument(help: ArgumentHelp("get, store, erase, list or version (the client passes it).", valueName: "action"))
        var action: String

        func run() async throws {
            // The client may close the pipe early; a write then fails instead of killing the helper.
            signal(SIGPIPE, SIG_IGN)
            guard let action = Action(rawValue: action) else {
                // The reference helpers' answer, on stdout where clients read it.
                RawOutput.put("Unknown credential action `\(self.action)`\n", to: STDOUT_FILENO)
                throw ExitCode(1)
            }
            if action == .version {
                let version = BiometricsVaultCommand.configuration.version
                RawOutput.put("\(DockerCredentialVerb.helperName) (biometrics-vault) \(version)".trimmingTrailingSpaces + "\n", to: STDOUT_FILENO)
                return
            }
            var missed = false
            let options = options
            try await Console.run(options) {
                do {
                    let input = try action == .list ? "" : DockerCredentialProtocol.readStandardInput()
                    let session = Session(options: options, announcesStore: false)
                    let helper = DockerCredentialHelper(configuration: session.configuration)
                    let answer: String?
                    switch action {
                    case .get:
                        let serverURL = try DockerCredentialProtocol.serverURL(in: input)
                        answer = try await Interrupts.cancellingOnInterrupt { try await helper.get(serverURL: serverURL) }
                    case .store:
                        let item = try DockerCredentialItem(request: try JSONValue.parse(Array(input.utf8), source: "stdin"))
                        try await Interrupts.cancellingOnInterrupt { try await helper.store(item) }
                        answer = ""
                    case .erase:
                        answer = try await helper.erase(serverURL: try DockerCredentialProtocol.serverURL(in: input)) ? "" : nil
                    case .list:
                        answer = try helper.list() + "\n"
                    case .version:
                        answer = ""
                    }
                    guard let answer else {
                        missed = true
                        return
                    }
                    RawOutput.put(answer, to: STDOUT_FILENO)
                } catch {
                    // Clients show what the helper printed on stdout: the failure goes there too (and, as
                    // for every verb, on stderr with its exit status).
                    let (_, _, message) = Console.describe(error, verbose: options.verbose)
                    RawOutput.put(message + "\n", to: STDOUT_FILENO)
                    throw error
                }
            }
            if missed {
                RawOutput.put(DockerCredentialProtocol.notFoundMessage + "\n", to: STDOUT_FILENO)
                throw ExitCode(1)
            }
        }
    }
}

/// The verb name and the helper link's name.
enum DockerCredentialVerb {
    static let name = BiometricsVaultCommand.DockerCredential.configuration.commandName ?? "docker-credential"
    static let helperName = "docker-credential-biometrics-vault"
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The docker helper's operations on the vault (the command above only reads stdin and prints).
///
/// An item under a docker key that is not this helper's object (made by hand) is *foreign*: `get` answers
/// it as not found, `store` replaces a plain one, `erase` deletes it (the client asked to log out of
/// that server). A protected item is unlocked (one prompt) by `get` and by a `store` that changes it.
struct DockerCredentialHelper: Sendable {
    let configuration: VaultConfiguration

    private func vault(_ key: String) throws -> Vault<JSONValue> {
        try VaultFactory<JSONValue>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }

    /// The JSON answer for `serverURL`, or `nil` when nothing (of this helper's) is stored for it.
    func get(serverURL: String) async throws -> String? {
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
    func store(_ item: DockerCredentialItem) async throws {
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
    func erase(serverURL: String) async throws -> Bool {
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
    func list() throws -> String {
        var members: [String: JSONValue] = [:]
        let keys = try configuration.store.keys(service: configuration.service).filter { $0.hasPrefix(DockerCredentialKey.prefix) }
        for key in keys {
            guard let vault = try? vault(key) else { continue }
            switch vault.kind {
            case .empty: continue
            case .keychain, .biometrics:
                guard let item = DockerCredentialItem(stored: try vault.credentials) else { continue }
                members[item.serverURL] = .string(item.username)
            case .locked:
                guard let serverURL = CredentialHelperKey.decode(key.dropFirst(DockerCredentialKey.prefix.count)) else { continue }
                members[serverURL] = .string("")
            }
        }
        return JSONValue.object(members).jsonText
    }
}
