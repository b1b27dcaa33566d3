#if os(Linux)
import ArgumentParser
@testable import biometrics_vault
import BiometricsVaultTestSupport
import Testing

/// How ArgumentParser reads the command line (``BiometricsVaultCommand/options``), and the words
/// ``RawArguments`` handles before it.
@Suite(.onTestThreads) struct CommandLineParsingTests {
    /// The global options the verb (`show` or `key status`) runs with, for `arguments` as `main` parses them.
    static func options(_ arguments: [String]) throws -> GlobalOptions {
        let command = try BiometricsVaultCommand.parseAsRoot(arguments)
        if let show = command as? BiometricsVaultCommand.Show { return show.options }
        return try #require(command as? BiometricsVaultCommand.KeyStatus).options
    }

    @Test("global options before the verb, between `key` and its verb, and after it", arguments: [
        ["--store", "file", "--json", "show", "k"],
        ["show", "--store", "file", "k", "--json"],
        ["--store=file", "show", "--json", "k"],
        ["--json", "key", "--store", "file", "status"],
        ["key", "--json", "status", "--store", "file"],
        ["--store", "file", "key", "status", "--json"],
    ])
    func globalOptionsAnywhere(arguments: [String]) throws {
        let options = try Self.options(arguments)
        #expect(options.store == .file && options.json, "\(arguments)")
        #expect(!options.verbose && options.authenticator == .auto)
    }

    @Test func showReadsItsKeyAndField() throws {
        let show = try #require(
            try BiometricsVaultCommand.parseAsRoot(["--verbose", "show", "k", "--field", "token", "--service", "work"])
                as? BiometricsVaultCommand.Show)
        #expect(show.item.key == "k" && show.field == "token")
        #expect(show.options.verbose && show.options.service == "work")
    }

    /// The words after `--` are the command `exec` runs, never options of ours.
    @Test func execsCommandKeepsItsOptions() throws {
        let exec = try #require(
            try BiometricsVaultCommand.parseAsRoot(["--json", "exec", "k", "--env", "A=b", "--", "env", "--store", "file"])
                as? BiometricsVaultCommand.Exec)
        #expect(exec.command == ["env", "--store", "file"])
        #expect(exec.options.store == .auto && exec.options.json)
    }

    @Test("the helper links run their verb", arguments: [
        ("/usr/bin/git-credential-biometrics-vault", ["get"], ["git-credential", "get"]),
        ("docker-credential-biometrics-vault", ["list"], ["docker-credential", "list"]),
        ("/usr/bin/biometrics-vault", ["show", "k"], ["show", "k"]),
        ("git-credential-biometrics-vault-old", ["get"], ["get"]),
    ] as [(String, [String], [String])])
    func helperLinks(program: String, typed: [String], parsed: [String]) {
        #expect(RawArguments.arguments(program: program, typed) == parsed)
    }

    @Test(arguments: [
        (["show", "-dash"], "-dash"), (["show", "k", "-hx"], "-hx"), (["show", "-h"], nil), (["show", "--", "-dash"], nil),
        (["exec", "k", "--env", "A=b", "--", "ls", "-la"], nil), (["show", "-"], nil),
    ] as [([String], String?)])
    func shortOptionClusters(line: [String], found: String?) {
        #expect(RawArguments.shortOptionCluster(in: line) == found)
    }
}
#endif
