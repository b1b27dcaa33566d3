#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// Libraries the CLI opens only when a command needs them, so that every other run neither loads them
/// nor needs them installed (libpam here; tpm2-tss in `TPMSealingTests`).
@Suite(.onTestThreads) struct StartupLibrariesTests {
    /// Root only: the library is hidden by a bind mount in a private mount namespace (CI runs as root, and
    /// scripts/test.sh fails a CI run in which it skipped).
    @Test(
        "store and show of a plain item run with libpam hidden: PAM is opened only to authenticate the owner",
        .enabled(if: getuid() == 0, "hides libpam with a bind mount: root only"))
    func plainItemsNeedNoPAM() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "util-linux's unshare is missing")
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let result = try await sandbox.runHiding(library: "libpam.so.0")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("kept\n"), "\(result.stdout)\(result.stderr)")
    }
}
#endif
