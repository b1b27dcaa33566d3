#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// scripts/lib/at-exit.sh, as scripts/test.sh uses it: the cleanup of a `set -e` script signals the
/// process group of a background build that has already ended (kill fails) and must still run to its
/// end, and the script must end with its own status, not the cleanup's.
struct RunAtExitTests {
    @Test(arguments: [0, 3] as [Int32])
    func aFailingCleanupStepKeepsTheScriptsStatusAndRunsTheRest(exitStatus: Int32) async throws {
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
        let result = try await Shell.bash(script)
        #expect(result.status == exitStatus, "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker), "the cleanup stopped at the failing kill")
    }
}

/// scripts/stop-daemons.sh stops what a setup script recorded even when it outlives SIGTERM: KeePassXC
/// takes SIGTERM to quit and never finishes once its bus is gone, and CI runs left it running. A shell
/// that ignores SIGTERM stands in for that KeePassXC (the real one needs 20 s of setup to get there).
struct StopDaemonsTests {
    @Test func aProcessThatOutlivesSIGTERMIsKilled() async throws {
        let started = try await Shell.bash("""
            dir=$(mktemp -d /tmp/bv-keepassxc.XXXXXX)
            (trap '' TERM; exec sleep 600) </dev/null >/dev/null 2>&1 &
            echo $! > "$dir/keepassxc.pid"
            echo "$dir $!"
            """)
        let words = started.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let directory = try #require(words.first), pid = try #require(words.last.flatMap { Int32($0) })
        defer { kill(pid, SIGKILL); try? FileManager.default.removeItem(atPath: directory) }
        let script = repositoryRoot().appendingPathComponent("scripts/stop-daemons.sh").path
        // A clean environment: the run's own (CI exports every setup script's sandbox variables) would
        // make the script stop the daemons the other tests are using.
        let stopped = try await Shell.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "BV_KEEPASSXC_SANDBOX=\(directory)", "/bin/bash", script])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        // Gone, or a zombie nobody reaped yet (the container's init may not reap). SIGKILL takes effect
        // when the process is next scheduled, which on a loaded machine can be after the script returns.
        func state() -> Character? {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?.dropFirst().first
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while let running = state(), running != "Z", ContinuousClock.now < deadline { try await Task.sleep(for: .microseconds(20_000)) }
        #expect(state() == nil || state() == "Z", "the process that ignores SIGTERM still runs")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
#endif
