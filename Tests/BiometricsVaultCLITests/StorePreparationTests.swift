#if os(Linux)
@testable import biometrics_vault
import ArgumentParser
import BiometricsVault
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The connection the CLI starts before parsing (``StorePreparation``): for which command lines, and that
/// nothing is connected for the others.
@Suite struct StorePreparationTests {
    @Test(arguments: [
        (["show", "k"], PlatformStoreChoice.auto),
        (["show", "k", "--store", "secret-service"], .secretService),
        (["status", "k", "--store=secret-service", "--json"], .secretService),
        (["store", "k", "--store", "file"], .file),
        (["list", "--store=file"], .file),
        (["git-credential", "get"], .auto),
        (["exec", "k", "--", "env", "--store", "file"], .auto),  // the child's words are not ours
    ] as [([String], PlatformStoreChoice)])
    func commandsThatOpenTheStorePrepareIt(arguments: [String], expected: PlatformStoreChoice) {
        #expect(StorePreparation.choice(for: arguments) == expected)
    }

    @Test(arguments: [
        [], ["--help"], ["help", "show"], ["doctor"], ["setup"], ["key", "status"], ["check-password-prompt"],
        ["show", "--help"], ["show", "k", "-h"], ["store", "--version"], ["show", "k", "--store"],
        ["show", "k", "--store", "tpm"], ["show", "--generate-completion-script", "bash"], ["bogus"],
    ] as [[String]])
    func otherCommandLinesPrepareNothing(arguments: [String]) {
        #expect(StorePreparation.choice(for: arguments) == nil)
    }

    /// Every verb named is one of the CLI's commands (a renamed verb would silently lose the overlap).
    @Test func theVerbsAreCommands() {
        let commands = Set(BiometricsVaultCommand.configuration.subcommands.compactMap { $0.configuration.commandName })
        let verbs = Set(StorePreparation.verbs)
        #expect(verbs.isSubset(of: commands), "\(verbs.subtracting(commands))")
    }
}

/// The same from the outside, under strace: the session bus is a socket path in the sandbox with nothing
/// listening, so every attempt to reach it shows as a `connect` to that path. `--store file`, help and
/// usage texts never try; `--store secret-service` does (the control: the trace does see the attempt).
@Suite struct StorePreparationConnectTests {
    /// The `connect` calls to the sandbox's bus path while `arguments` ran.
    func busConnects(_ arguments: [String]) throws -> (result: CLIResult, connects: [String])? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            if Daemons.required { Issue.record("strace is missing (scripts/install-deps.sh installs it)") }
            return nil
        }
        var sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let socket = sandbox.root.appendingPathComponent("no-bus-here").path
        let trace = sandbox.root.appendingPathComponent("trace").path
        sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        // LeakSanitizer (the ASan CI run) cannot stop a traced process's threads.
        sandbox.environment["ASAN_OPTIONS"] = (sandbox.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let result = try sandbox.run(
            executable: URL(fileURLWithPath: "/usr/bin/strace"),
            ["-f", "-qq", "-e", "trace=connect", "-o", trace, CLISandbox.binary.path] + arguments)
        let lines = String(decoding: FileManager.default.contents(atPath: trace) ?? Data(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        return (result, lines.filter { $0.contains(socket) })
    }

    @Test(arguments: [
        ["show", "k", "--store", "file", "--authenticator", "none"],
        ["show", "--help"],
        ["--store", "file", "list"],
    ] as [[String]])
    func noConnection(arguments: [String]) throws {
        guard let (result, connects) = try busConnects(arguments) else { return }
        #expect(connects.isEmpty, "exit \(result.status): \(connects)")
    }

    /// The control: the trace does see the CLI reach for the bus (nothing listens there: exit 6).
    @Test func theSecretServiceStoreConnects() throws {
        guard let (result, connects) = try busConnects(["show", "k", "--store", "secret-service", "--authenticator", "none"])
        else { return }
        #expect(result.status == 6, "\(result.stderr)")
        #expect(!connects.isEmpty)
    }
}
#endif
