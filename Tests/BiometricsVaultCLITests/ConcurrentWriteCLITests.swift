#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// Several `biometrics-vault` processes writing one key at once: the store's conditional write decides,
/// under its own cross-process lock, and the CLI reports the loser as "wrong state" (exit 10).
@Suite("CLI processes racing on one key", .serialized)
struct ConcurrentWriteCLITests {
    enum Store: String, CaseIterable, Sendable {
        case file
        case secretService = "secret-service"
    }

    @Test("4 concurrent `store KEY` into an empty key on the file store: exactly one exits 0, the others exit 10")
    func concurrentStoresHaveOneWinnerOnTheFileStore() throws {
        try concurrentStoresHaveOneWinner(.file)
    }

    @Test("4 concurrent `store KEY` into an empty key on the Secret Service: exactly one exits 0, the others exit 10", .needs(CLINeeds.secretService))
    func concurrentStoresHaveOneWinnerOnTheSecretService() throws {
        try concurrentStoresHaveOneWinner(.secretService)
    }

    func concurrentStoresHaveOneWinner(_ store: Store) throws {
        let sandbox = try CLISandbox(keepSessionBus: store == .secretService)
        defer { sandbox.remove() }
        let service = "bv-cli-race-\(UUID().uuidString.prefix(8))"
        let common = ["--service", service, "--store", store.rawValue, "--authenticator", "none"]
        defer { _ = try? sandbox.run(["reset", "race"] + common) }
        for round in 0..<8 {
            let results = try sandbox.runConcurrently(
                (0..<4).map { writer in (["store", "race"] + common, #"{"writer":\#(writer)}"#) })
            let winners = results.filter { $0.status == 0 }
            #expect(winners.count == 1, "round \(round): \(winners.count) stores succeeded: \(results.map(\.stderr))")
            for loser in results where loser.status != 0 {
                #expect(loser.status == 10, "round \(round): \(loser.stderr)")
            }
            let shown = try sandbox.run(["show", "race"] + common)
            #expect(shown.status == 0)
            let winner = try #require(results.firstIndex { $0.status == 0 })
            #expect(shown.stdout.contains(#""writer":\#(winner)"#), "the stored item is not the winner's: \(shown.stdout)")
            let reset = try sandbox.run(["reset", "race"] + common)
            #expect(reset.status == 0, "round \(round): \(reset.stderr)")
        }
    }

    @Test("`update` waiting for the file store's lock while another process deletes the item: exit 2, the item stays deleted")
    func updateAfterAConcurrentDeleteDoesNotResurrect() throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let common = ["--store", "file", "--authenticator", "none"]
        #expect(try sandbox.run(["store", "k"] + common, stdin: #"{"v":1}"#).status == 0)
        let root = sandbox.root.appendingPathComponent("data/biometrics-vault")
        let serviceDirectory = try #require(
            try FileManager.default.contentsOfDirectory(atPath: root.path).first { $0.count == 64 })
        let directory = root.appendingPathComponent(serviceDirectory)
        let itemFile = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".bvi") })

        // Another writer holds the service's lock (as a concurrent `reset` would).
        let lock = open(directory.appendingPathComponent(".lock").path, O_RDWR | O_CLOEXEC)
        #expect(lock >= 0)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)

        let update = try sandbox.start(["update", "k"] + common, stdin: #"{"v":2}"#)
        // The update has read the item and now waits for the lock to write it.
        #expect(
            waitUntilWaitingForLock(pid: update.processIdentifier, lockPath: directory.appendingPathComponent(".lock").path),
            "the update never waited for the lock")
        // Inside the lock, the other writer deletes the item, then lets go.
        #expect(unlink(directory.appendingPathComponent(itemFile).path) == 0)
        #expect(flock(lock, LOCK_UN) == 0)
        update.waitUntilExit()
        #expect(update.terminationStatus == 2, "update of a deleted item must fail with 'not found'")
        let status = try sandbox.run(["show", "k"] + common)
        #expect(status.status == 2, "the deleted item came back: \(status.stdout)")
    }
}

/// Whether `pid` has opened `lockPath`, the lock another process holds (bounded wait): it opens the
/// lock file only to take the lock, and tries again (non-blocking, with a bounded total wait) until
/// it gets it.
func waitUntilWaitingForLock(pid: Int32, lockPath: String) -> Bool {
    let descriptors = "/proc/\(pid)/fd"
    for _ in 0..<400 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
        if names.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)) == lockPath }) {
            return true
        }
        usleep(25_000)
    }
    return false
}

extension CLISandbox {
    /// Starts the CLI without waiting; its output goes to /dev/null.
    func start(_ arguments: [String], stdin: String) throws -> Process {
        let input = root.appendingPathComponent("stdin-\(UUID().uuidString)")
        try Data(stdin.utf8).write(to: input)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts every run at once and waits for all of them.
    func runConcurrently(_ runs: [(arguments: [String], stdin: String)]) throws -> [CLIResult] {
        var started: [(Process, URL, URL)] = []
        for run in runs {
            let id = UUID().uuidString
            let input = root.appendingPathComponent("stdin-\(id)")
            let output = root.appendingPathComponent("stdout-\(id)")
            let errors = root.appendingPathComponent("stderr-\(id)")
            try Data(run.stdin.utf8).write(to: input)
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = run.arguments
            process.environment = environment
            process.standardInput = try FileHandle(forReadingFrom: input)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: errors)
            started.append((process, output, errors))
        }
        for (process, _, _) in started { try process.run() }
        return started.map { process, output, errors in
            process.waitUntilExit()
            return CLIResult(status: process.terminationStatus, stdout: Self.text(of: output), stderr: Self.text(of: errors))
        }
    }
}
#endif
