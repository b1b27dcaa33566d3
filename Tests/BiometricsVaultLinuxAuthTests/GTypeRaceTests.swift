#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// A cold `retrieveVault` opens the Secret Service and probes fprintd on two threads at once. GLib 2.74's
/// type system deadlocks when one thread sets up a class that refers to `GDBusConnection` (a
/// `GDBusProxy`, as libsecret's `SecretService` is) while another registers that type: the process hangs
/// for ever. `GTypeStartup` sets those classes up first; this sweep guards that no change of the D-Bus
/// layer brings such a set-up back onto the two threads unprepared.
///
/// Type set-up happens once per process, so each attempt is a fresh `GLibTypeRaceDriver` process that
/// starts both at one instant, with the Secret Service side delayed by a swept offset (every 10 µs) so the
/// two set-ups meet at every point of their overlap. No daemon is involved: the driver points both buses
/// at a socket of its own that closes each connection at once, so an attempt's time is set-up alone.
@Suite(.onTestThreads) struct GTypeRaceTests {
    static let offsets = Array(stride(from: 0, through: 600, by: 10))
    static let attemptsPerOffset = 16
    /// An attempt takes well under a second; a deadlock never ends. The margin is for a machine loaded
    /// by a whole AddressSanitizer test run, so that only a hang fails.
    static let limit: Duration = .seconds(30)

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

    /// Runs one attempt: nil when it finished within `limit`, else what its threads were doing (the
    /// process is then killed).
    static func hang(_ driver: String, offset: Int, limit: Duration) async throws -> String? {
        let process = try await ChildProcess.start(driver, [String(offset)])
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        guard process.isRunning else { return nil }
        let threads = await threadStates(process.processIdentifier)
        process.signal(SIGKILL)
        try await process.exit()
        return threads
    }

    /// Each thread's name, state and kernel wait channel (from /proc, always there), then every thread's
    /// stack from gdb when it is installed.
    static func threadStates(_ pid: pid_t) async -> String {
        let tasks = "/proc/\(pid)/task"
        var lines: [String] = []
        let ids = ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
        for id in ids {
            func read(_ file: String) -> String {
                ((try? String(contentsOfFile: "\(tasks)/\(id)/\(file)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            // stat: "ID (NAME) STATE ...", the CPU times in clock ticks 11 and 12 fields after the state.
            let stat = read("stat")
            let name = stat.firstIndex(of: "(").flatMap { open in
                stat.lastIndex(of: ")").map { String(stat[stat.index(after: open)..<$0]) }
            } ?? "?"
            let fields = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ") } ?? []
            let state = fields.count > 12 ? "\(fields[0]), user \(fields[11]) system \(fields[12]) ticks" : "?"
            lines.append("thread \(id) (\(name)): \(state), wchan \(read("wchan"))")
        }
        lines.append(await gdbStacks(pid) ?? "(no gdb: no user-space stacks)")
        return lines.joined(separator: "\n")
    }

    /// `gdb -batch -ex 'thread apply all bt'` attached to `pid`, itself bounded (killed after 60 s). Its
    /// output goes to a file, so waiting for it never blocks on a pipe.
    static func gdbStacks(_ pid: pid_t) async -> String? {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/gdb" }
        guard let gdb = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gtype-race-gdb-\(pid).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
              let process = try? await ChildProcess.start(
                  gdb, ["-p", String(pid), "-batch", "-nx", "-ex", "thread apply all bt"],
                  stdout: .file(file.path), stderr: .file(file.path))
        else { return nil }
        _ = try? await process.exit(within: 60)
        return try? String(contentsOf: file, encoding: .utf8)
    }

    /// The sweep (a minute or more, one attempt after another) stops at the first hang, whose threads the
    /// failure shows. It waits suspended, so it holds no thread of the parallel run meanwhile.
    @Test func secretServiceAndFprintdStartingTogetherNeverHang() async throws {
        let driver = try #require(Self.driver, "GLibTypeRaceDriver is not built: run `swift build --build-tests` first")
        let attempts = Self.offsets.count * Self.attemptsPerOffset
        for attempt in 0..<attempts {
            let offset = Self.offsets[attempt % Self.offsets.count]
            if let threads = try await Self.hang(driver, offset: offset, limit: Self.limit) {
                Issue.record(
                    "attempt \(attempt + 1) of \(attempts) (offset \(offset) µs) did not finish within \(Self.limit); its threads:\n\(threads)")
                return
            }
        }
    }

    /// The diagnosis a hang's failure carries, on a process that is certainly stuck (`sleep`): every
    /// thread's state and wait channel, whether or not gdb is installed.
    @Test func aHangIsReportedWithItsThreads() async throws {
        let sleeper = try await ChildProcess.start("/bin/sleep", ["60"])
        defer { sleeper.signal(SIGKILL) }
        // Until the child runs `sleep` and sleeps in it (a loaded machine starts it late).
        var report = await Self.threadStates(sleeper.processIdentifier)
        for _ in 0..<100 where !report.contains("(sleep): S") {
            try await Task.sleep(for: .milliseconds(100))
            report = await Self.threadStates(sleeper.processIdentifier)
        }
        #expect(report.contains("thread \(sleeper.processIdentifier) (sleep): S, user "), "\(report)")
        #expect(!report.contains("wchan ?"), "\(report)")
        if await Self.gdbStacks(sleeper.processIdentifier) != nil { #expect(report.contains("nanosleep"), "\(report)") }
    }
}
#endif
