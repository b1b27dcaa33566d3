#if os(Linux)
import ArgumentParser
import BiometricsVault
@testable import biometrics_vault
import Foundation
import Testing

/// ``DirectParse`` reads the plainest `show` lines without ArgumentParser: every line it reads must give
/// the command ArgumentParser gives, and every other line must be left to ArgumentParser.
@Suite struct DirectParseTests {
    typealias Show = BiometricsVaultCommand.Show

    /// What ArgumentParser makes of the same line (the root command, as `main` would run it).
    static func argumentParser(_ arguments: [String]) throws -> ShowRequest? {
        (try BiometricsVaultCommand.parseAsRoot(arguments) as? Show)?.request
    }

    @Test(arguments: [
        ["show", "k"],
        ["show", "github"],
        ["show", "k", "--service", "work"],
        ["show", "--service", "work", "k"],
        ["show", "k", "--field", "token"],
        ["show", "k", "--store", "file", "--authenticator", "none"],
        ["show", "k", "--store", "secret-service", "--authenticator", "fprintd", "--json"],
        ["show", "--json", "--verbose", "k", "--field", "user"],
        ["show", "k", "--pin-stdin"],
        ["show", "k", "--passphrase-stdin", "--store", "auto", "--authenticator", "pam"],
        ["show", "k", "--authenticator", "polkit"],
        ["show", "key with spaces", "--service", "ünïcode"],
        ["show", "help"],
        ["show", "show"],
        ["show", "k", "--field", "x", "--store", "auto"],
        ["show", "k", "--service", "show"],
    ] as [[String]])
    func readLinesGiveArgumentParsersCommand(arguments: [String]) throws {
        let direct = try #require(DirectParse.show(arguments), "this plain line should be read directly")
        let parsed = try #require(try Self.argumentParser(arguments))
        #expect(direct == parsed)
    }

    @Test(arguments: [
        [], ["show"], ["status", "k"], ["reset", "k"], ["shows", "k"],
        ["show", "-h"], ["show", "k", "--help"], ["show", "k", "-h"], ["show", "--version"],
        ["show", "k", "k2"], ["show", "k", "--field"], ["show", "k", "--service"],
        ["show", "--service=work", "k"], ["show", "k", "--field=token"],
        ["show", "k", "--store", "tpm"], ["show", "k", "--authenticator", "face"],
        ["show", "k", "--json", "--json"], ["show", "k", "--field", "a", "--field", "b"],
        ["show", "k", "--field", "-x"], ["show", "-k"], ["show", "-"], ["show", ""], ["show", "k", "--"],
        ["show", "--", "k"], ["show", "k", "--bogus"], ["show", "k", "--generate-completion-script", "bash"],
        ["show", "k", "--service", ""],
    ] as [[String]])
    func otherLinesAreLeftToArgumentParser(arguments: [String]) {
        #expect(DirectParse.show(arguments) == nil)
    }

    /// Lines built from every piece in many orders: whenever the direct parse reads one, ArgumentParser
    /// accepts it too and gives the same command.
    @Test func combinationsAgreeWithArgumentParser() throws {
        let pieces: [[String]] = [
            ["k"], ["--service", "s"], ["--store", "file"], ["--authenticator", "none"], ["--field", "f"],
            ["--json"], ["--verbose"], ["--pin-stdin"], ["--passphrase-stdin"], ["--service", "-s"], ["k2"],
        ]
        var generator = SplitMix64(seed: 14)  // fixed: the same lines on every run
        var read = 0
        for _ in 0..<400 {
            let count = Int.random(in: 1...5, using: &generator)
            let line = ["show"] + (0..<count).flatMap { _ in pieces.randomElement(using: &generator)! }
            guard let direct = DirectParse.show(line) else { continue }
            read += 1
            let parsed = try #require(try Self.argumentParser(line), "\(line)")
            #expect(direct == parsed, "\(line)")
        }
        #expect(read > 50)
    }

    /// A small seeded generator, so the combinations are the same on every run.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// ``ShowRequest`` and ``PlainGlobalOptions`` hold every value of `show`'s command line: a new option
    /// of ``BiometricsVaultCommand/Show`` or ``GlobalOptions`` must be added to them (and to the direct
    /// parse), or this fails.
    @Test func theRequestHoldsEveryOption() {
        func labels(_ value: Any) -> [String] {
            Mirror(reflecting: value).children.compactMap(\.label).map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 }
        }
        #expect(labels(Show()) == ["options", "item", "field"])
        #expect(labels(ShowRequest(options: PlainGlobalOptions(), key: "k")) == ["options", "key", "field"])
        #expect(labels(KeyArgument()) == ["key"])
        #expect(labels(PlainGlobalOptions()) == labels(GlobalOptions()))
        // `--unlock-window` is not read by the direct parse: a line with it goes to ArgumentParser.
        #expect(labels(GlobalOptions()) == ["service", "store", "authenticator", "json", "verbose", "pinStdin", "passphraseStdin", "unlockWindow"])
    }
}
#endif
