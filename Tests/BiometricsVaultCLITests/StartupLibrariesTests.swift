#if os(Linux)
import Foundation
import Testing

/// Libraries the CLI opens only when a command needs them, so that every other run neither loads them
/// nor needs them installed (libpam here; tpm2-tss in `TPMSealingTests`).
@Suite struct StartupLibrariesTests {
    /// Root only: the library is hidden by a bind mount in a private mount namespace (CI runs as root, and
    /// scripts/test.sh fails a CI run in which it skipped).
    @Test(
        "store and show of a plain item run with libpam hidden: PAM is opened only to authenticate the owner",
        .enabled(if: getuid() == 0, "hides libpam with a bind mount: root only"))
    func plainItemsNeedNoPAM() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "util-linux's unshare is missing")
        // The loader's own answer for where the library is: its directory differs by architecture.
        let library = "libpam.so.0"
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let script = """
            lib=$(/sbin/ldconfig -p | sed -n "s/^[[:space:]]*$1 .*=> //p" | head -n 1)
            [ -n "$lib" ] || { echo "$1 is not installed"; exit 89; }
            mount --bind /dev/null "$(readlink -f "$lib")" || exit 90
            bv="$2"
            printf '{"token":"kept"}' | "$bv" store plain --store file || exit 91
            "$bv" show plain --store file --field token || exit 92
            """
        let result = try sandbox.run(
            executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            ["-m", "/bin/sh", "-c", script, "sh", library, CLISandbox.binary.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("kept\n"), "\(result.stdout)\(result.stderr)")
    }
}
#endif
