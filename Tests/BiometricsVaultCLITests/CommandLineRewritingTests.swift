#if os(Linux)
import ArgumentParser
@testable import biometrics_vault
import Testing

/// ``CommandLineRewriting``: global options typed before a verb end up where the verb declares them.
@Suite struct CommandLineRewritingTests {
    @Test(arguments: [
        (["--store", "file", "show", "k"], ["show", "--store", "file", "k"]),
        (["--json", "key", "status"], ["key", "status", "--json"]),
        (["key", "--json", "status"], ["key", "status", "--json"]),
        (["--store=file", "key", "--json", "seal", "--tpm"], ["key", "seal", "--store=file", "--json", "--tpm"]),
        (["key", "status", "--json"], ["key", "status", "--json"]),
        (["key", "--bogus", "status"], ["key", "--bogus", "status"]),
        (["--json", "key"], ["key", "--json"]),
        (["--stor", "file", "show", "k"], ["--stor", "file", "show", "k"]),
    ] as [([String], [String])])
    func optionsMoveAfterTheVerbThatDeclaresThem(typed: [String], rewritten: [String]) {
        #expect(CommandLineRewriting.movingGlobalOptionsAfterVerb(typed) == rewritten)
    }

    /// Every rewritten line with `key` parses as ArgumentParser's `key` verb with the options set.
    @Test func rewrittenKeyLinesParse() throws {
        let line = CommandLineRewriting.movingGlobalOptionsAfterVerb(["--json", "--store", "file", "key", "--verbose", "status"])
        let command = try BiometricsVaultCommand.parseAsRoot(line)
        let status = try #require(command as? BiometricsVaultCommand.KeyStatus)
        #expect(status.options.json && status.options.verbose && status.options.store == .file)
    }

    /// The group verbs are exactly the commands that have subcommands.
    @Test func groupVerbsAreTheCommandsWithSubcommands() {
        var groups: [String] = []
        for command in BiometricsVaultCommand.configuration.subcommands {
            let configuration = command.configuration
            if !configuration.subcommands.isEmpty, let name = configuration.commandName { groups.append(name) }
        }
        #expect(groups.sorted() == CommandLineRewriting.groupVerbs.sorted())
    }

    @Test(arguments: [
        (["show", "-dash"], "-dash"), (["show", "k", "-hx"], "-hx"), (["show", "-h"], nil), (["show", "--", "-dash"], nil),
        (["exec", "k", "--env", "A=b", "--", "ls", "-la"], nil), (["show", "-"], nil),
    ] as [([String], String?)])
    func shortOptionClusters(line: [String], found: String?) {
        #expect(CommandLineRewriting.shortOptionCluster(in: line) == found)
    }
}
#endif
