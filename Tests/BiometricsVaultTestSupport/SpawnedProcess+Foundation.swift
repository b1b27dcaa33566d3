#if !os(Linux)
import Foundation

/// Foundation's `Process` behind ``SpawnedProcess``'s interface where the Linux one (posix_spawn and
/// waitpid, SpawnedProcess+Linux.swift) is not built; the tests that start processes run on Linux.
package final class SpawnedProcess {
    package typealias TerminationReason = Process.TerminationReason
    private let process: Process

    package init(
        executable: String, _ arguments: [String], environment: [String: String],
        stdin: String? = nil, stdout: String? = nil, stderr: String? = nil
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdin ?? "/dev/null"))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout ?? "/dev/null"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr ?? "/dev/null"))
        try process.run()
        self.process = process
    }

    package var processIdentifier: Int32 { process.processIdentifier }
    package var isRunning: Bool { process.isRunning }
    package func waitUntilExit() { process.waitUntilExit() }
    package var terminationStatus: Int32 { process.terminationStatus }
    package var terminationReason: TerminationReason { process.terminationReason }
    package func terminate() { process.terminate() }
}
#endif
