#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// scripts/lib/at-exit.sh, as scripts/test.sh uses it: the cleanup of a `set -e` script signals the
/// process group of a background build that has already ended (kill fails) and must still run to its
/// end, and the script must end with its own status, not the cleanup's.
struct RunAtExitTests {
    @Test(arguments: [0, 3] as [Int32])
    func aFailingCleanupStepKeepsTheScriptsStatusAndRunsTheRest(exitStatus: Int32) throws {
        let scratch = try TestScratch.newDirectory("at-exit")
        let library = repositoryRoot().appendingPathComponent("scripts/lib/at-exit.sh").path
        let marker = scratch.appendingPathComponent("cleanup-finished").path
        let script = """
            set -euo pipefail
            source '\(library)'
            background=()
            stop_run() {
                for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null; done
                touch '\(marker)'
            }
            run_at_exit stop_run
            setsid true &
            background+=("$!")
            wait "${background[0]}"
            exit \(exitStatus)
            """
        let result = try Shell.bash(script)
        #expect(result.status == exitStatus, "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker), "the cleanup stopped at the failing kill")
    }
}
#endif
