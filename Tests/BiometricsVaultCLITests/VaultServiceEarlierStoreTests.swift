#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

extension VaultServiceCLITests {
    /// Once the service is installed `auto` picks it: an item kept before in the file store reads as
    /// absent there, and the error says which store holds it and the import that moves it (the CLI's,
    /// and an app's `retrieveVaultOrThrow(key:)`); a key no store holds gets the plain error.
    @Test(.needs(CLINeeds.testUser))
    func anItemInTheStoreUsedBeforeIsNamedWithTheImportThatMovesIt() async throws {
        try await prepareHomes()
        let stored = try await run(
            ["--store", "file", "--authenticator", "none", "store", "from-before"], as: user, stdin: #"{"token":"kept-before"}"#)
        #expect(stored.status == 0, "\(stored.stderr)")
        let shown = try await run(["show", "from-before"], as: user)
        #expect(shown.status == 2, "\(shown.stdout)\(shown.stderr)")
        #expect(shown.stderr.contains("the file store holds it") && shown.stderr.contains("biometrics-vault import --from-store file"), "\(shown.stderr)")
        let nowhere = try await run(["show", "in-no-store"], as: user)
        #expect(nowhere.status == 2 && !nowhere.stderr.contains("holds it"), "\(nowhere.stderr)")
        // An app on the platform default is told the same through `VaultError`.
        let app = CLISandbox.binary.deletingLastPathComponent().appendingPathComponent("ColdStartBenchmark").path
        let appRead = try await run(["retrieve-or-throw", "from-before"], as: user, executable: app)
        #expect(appRead.status == 2 && appRead.stderr.contains("itemNotFound: ") && appRead.stderr.contains("the file store holds it"),
                "\(appRead.stdout)\(appRead.stderr)")
        let appNowhere = try await run(["retrieve-or-throw", "in-no-store"], as: user, executable: app)
        #expect(appNowhere.status == 0 && appNowhere.stdout.contains("empty"), "\(appNowhere.stdout)\(appNowhere.stderr)")

        let moved = try await run(["import", "--from-store", "file", "--remove-source"], as: user)
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        let read = try await run(["show", "from-before", "--field", "token"], as: user)
        #expect(read.status == 0 && read.stdout.contains("kept-before"), "\(read.stdout)\(read.stderr)")
        _ = try await run(["reset", "from-before"], as: user)
    }
}
#endif
