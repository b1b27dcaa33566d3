import ArgumentParser
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

/// Two ways of calling the CLI that ArgumentParser does not know:
/// - as `git-credential-biometrics-vault OPERATION` (the link git runs for `credential.helper
///   biometrics-vault`): the `git-credential` verb; as `docker-credential-biometrics-vault ACTION` (the
///   link docker and containers/image run for `credHelpers`/`credsStore`): the `docker-credential` verb;
/// - with global options before the verb (`biometrics-vault --store file show K`, as git/kubectl users
///   type them): they are moved to just after the verb, where every verb accepts them.
enum CommandLineRewriting {
    /// The name of the git credential helper link.
    static let gitHelperName = "git-credential-biometrics-vault"

    /// The global options (``GlobalOptions``), and whether each takes a value.
    static let globalOptions: [String: Bool] = [
        "--service": true, "--store": true, "--authenticator": true, "--json": false, "--verbose": false,
        "--pin-stdin": false, "--passphrase-stdin": false,
    ]

    static func arguments(program: String, _ arguments: [String]) -> [String] {
        var arguments = arguments
        if Text.lastPathComponent(program) == gitHelperName {
            arguments.insert(GitCredentialVerb.name, at: 0)
        }
        if Text.lastPathComponent(program) == DockerCredentialVerb.helperName {
            arguments.insert(DockerCredentialVerb.name, at: 0)
        }
        return movingGlobalOptionsAfterVerb(arguments)
    }

    /// `[--store file, show, K]` → `[show, --store file, K]`. Anything it does not recognise before the
    /// verb (`--help`, a misspelt option, a missing value) leaves the line as it is, for ArgumentParser to
    /// answer or refuse as before.
    static func movingGlobalOptionsAfterVerb(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex, arguments[index].hasPrefix("-") {
            let word = arguments[index]
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            guard let takesValue = globalOptions[name] else { return arguments }
            leading.append(word)
            index += 1
            if takesValue && !word.contains("=") {
                guard index < arguments.endIndex else { return arguments }
                leading.append(arguments[index])
                index += 1
            }
        }
        guard !leading.isEmpty, index < arguments.endIndex else { return arguments }
        return [arguments[index]] + leading + arguments[(index + 1)...]
    }
}

/// The verb name the helper link dispatches to.
enum GitCredentialVerb {
    static let name = BiometricsVaultCommand.GitCredential.configuration.commandName ?? "git-credential"
}
