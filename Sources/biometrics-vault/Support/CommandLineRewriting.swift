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

    /// The verbs that only group others (`key status`): global options before them go after the verb
    /// they group, the one that declares the options. Spelled out rather than read from the commands'
    /// configurations (this runs before any parsing); `DirectParseTests` checks it against them.
    static let groupVerbs: [String] = ["key"]

    /// `[--store file, show, K]` → `[show, --store file, K]`; `[--json, key, status]` and `[key, --json,
    /// status]` → `[key, status, --json]`. Anything it does not recognise before the verb (`--help`, a
    /// misspelt option, a missing value) leaves the line as it is, for ArgumentParser to answer or refuse
    /// as before.
    static func movingGlobalOptionsAfterVerb(_ arguments: [String]) -> [String] {
        guard let (leading, verbIndex) = globalOptions(startingAt: arguments.startIndex, in: arguments) else {
            return arguments
        }
        let verb = arguments[verbIndex]
        var rest = Array(arguments[(verbIndex + 1)...])
        if groupVerbs.contains(verb), let (grouped, subverbIndex) = globalOptions(startingAt: rest.startIndex, in: rest) {
            let subverb = rest[subverbIndex]
            rest = [subverb] + leading + grouped + rest[(subverbIndex + 1)...]
            return [verb] + rest
        }
        guard !leading.isEmpty else { return arguments }
        return [verb] + leading + rest
    }

    /// The global options from `start` up to the first word that is not one (the verb), and that word's
    /// index; `nil` when there is no such word or something before it is not a global option.
    private static func globalOptions(startingAt start: Int, in arguments: [String]) -> ([String], Int)? {
        var leading: [String] = []
        var index = start
        while index < arguments.endIndex, arguments[index].hasPrefix("-") {
            let word = arguments[index]
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            guard let takesValue = globalOptions[name] else { return nil }
            leading.append(word)
            index += 1
            if takesValue && !word.contains("=") {
                guard index < arguments.endIndex else { return nil }
                leading.append(arguments[index])
                index += 1
            }
        }
        guard index < arguments.endIndex else { return nil }
        return (leading, index)
    }

    /// A word before `--` that ArgumentParser would read as a cluster of short flags (`-dash` is `-d -a -s
    /// -h`, and `-h` is help: `show -dash` printed help and exited 0). The CLI has no short option but
    /// `-h`, so such a word is a usage error, with the way to pass a key that begins with `-`.
    static func shortOptionCluster(in arguments: [String]) -> String? {
        for word in arguments {
            if word == "--" { return nil }
            if word.hasPrefix("-"), !word.hasPrefix("--"), word.utf8.count > 2 { return word }
        }
        return nil
    }
}

/// The verb name the helper link dispatches to.
enum GitCredentialVerb {
    static let name = BiometricsVaultCommand.GitCredential.configuration.commandName ?? "git-credential"
}
