import ArgumentParser
import BiometricsVault
import BiometricsVaultCredentialHelpers
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
                Console.outRaw("\(DockerCredentialVerb.helperName) (biometrics-vault) \(version)".trimmingTrailingSpaces + "\n")
                return
            }
            var missed = false
            let options = options
            try await Console.run(options) {
                do {
                    let input = try action == .list ? "" : DockerCredentialProtocol.readRequest(from: STDIN_FILENO)
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
                    // Through Console: an answer stdout did not take is exit 14, as for `show`, never success.
                    Console.outRaw(answer)
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
