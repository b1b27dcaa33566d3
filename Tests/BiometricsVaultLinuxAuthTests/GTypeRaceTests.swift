#if os(Linux)
import Foundation
import Glibc
import Testing

/// A cold `retrieveVault` opens the Secret Service and probes fprintd on two threads at once. Without
/// `GTypeStartup`, GLib's type system can deadlock when two threads register GIO's classes at the same
/// time: the process hangs for ever, about once in a thousand cold starts on a loaded machine.
///
/// Type set-up happens once per process, so each attempt is a fresh `GLibTypeRaceDriver` process that
/// starts both at one instant, with the Secret Service side delayed by a swept offset (every 10 µs) so the
/// two set-ups meet at every point of their overlap. No daemon is needed: both set-ups happen before any
/// message is sent, whichever buses there are.
@Suite struct GTypeRaceTests {
    static let offsets = Array(stride(from: 0, through: 600, by: 10))
    static let attemptsPerOffset = 16

    /// The driver is built next to the test bundle (`swift build --build-tests` builds every target).
    static var driver: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent("GLibTypeRaceDriver").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs one attempt; false when it did not finish within `limit` (it is then killed).
    static func finishes(_ driver: String, offset: Int, limit: Duration = .seconds(3)) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: driver)
        process.arguments = [String(offset)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// The sweep (a minute or more, one attempt after another) runs on a thread of its own and the test
    /// awaits it: the test run has about as many threads as CPUs, and a test that holds one for the whole
    /// sweep holds back every test that has not started yet.
    @Test func secretServiceAndFprintdStartingTogetherNeverHang() async throws {
        let driver = try #require(Self.driver, "GLibTypeRaceDriver is not built: run `swift build --build-tests` first")
        let hung = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Int], any Error>) in
            Thread {
                continuation.resume(with: Result {
                    var hung: [Int] = []
                    for _ in 0..<Self.attemptsPerOffset {
                        for offset in Self.offsets where try !Self.finishes(driver, offset: offset) {
                            hung.append(offset)
                        }
                    }
                    return hung
                })
            }.start()
        }
        #expect(hung.isEmpty, "\(hung.count) of \(Self.offsets.count * Self.attemptsPerOffset) attempts hung (offsets in µs: \(hung))")
    }
}
#endif
