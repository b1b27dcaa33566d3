#if os(Linux)
import BiometricsVaultCore
import Foundation
import Glibc

/// A child process started with posix_spawn and reaped with waitpid by this object only.
///
/// Not Foundation's `Process`: on Linux it learns of a child's exit on a Dispatch queue, and Dispatch's
/// worker threads are few (about two per CPU) and shared with Swift Testing's test bodies, which block them
/// while they wait for their own children. Under a loaded parallel run such a queue can wait minutes for a
/// thread, and a child that has exited still reads as running.
package final class SpawnedProcess: Sendable {
    package enum TerminationReason: Sendable { case exit, uncaughtSignal }

    package let processIdentifier: pid_t
    /// The raw wait status once reaped. The lock also keeps two threads from both calling waitpid.
    private let waitStatus = LockedValue<Int32?>(nil)

    /// Starts `executable` with stdin, stdout and stderr opened on the given files (`/dev/null` when
    /// `nil`) and exactly `environment` as its environment.
    package init(
        executable: String, _ arguments: [String], environment: [String: String],
        stdin: String? = nil, stdout: String? = nil, stderr: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_APPEND, 0)
        var pid: pid_t = 0
        let spawned = Shell.start(&pid, executable, arguments, environment: environment, replacing: true, actions: &actions)
        guard spawned == 0 else { throw TestFailure("could not start \(executable): errno \(spawned)") }
        processIdentifier = pid
    }

    /// Reaps the child if it has exited, without waiting.
    package var isRunning: Bool {
        waitStatus.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier { status = raw }
            return status == nil
        }
    }

    package func waitUntilExit() {
        waitStatus.withLock { status in
            guard status == nil else { return }
            var raw: Int32 = 0
            while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
    }

    /// The exit code, or the signal's number when a signal ended it (as Foundation's `Process`).
    package var terminationStatus: Int32 {
        waitUntilExit()
        let raw = waitStatus.withLock { $0 } ?? 0
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    package var terminationReason: TerminationReason {
        waitUntilExit()
        return (waitStatus.withLock { $0 } ?? 0) & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    package func terminate() { kill(processIdentifier, SIGTERM) }
}
#endif
