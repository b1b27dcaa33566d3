#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// Several `biometrics-vault` processes writing one key at once: the store's conditional write decides,
/// under its own cross-process lock, and the CLI reports the loser as "wrong state" (exit 10).
@Suite("CLI processes racing on one key", .onTestThreads, .serialized)
struct ConcurrentWriteCLITests {
    enum Store: String, CaseIterable, Sendable {
        case file
        case secretService = "secret-service"
    }

    @Test("4 concurrent `store KEY` into an empty key on the file store: exactly one exits 0, the others exit 10")
    func concurrentStoresHaveOneWinnerOnTheFileStore() async throws {
        try await concurrentStoresHaveOneWinner(.file)
    }

    @Test("4 concurrent `store KEY` into an empty key on the Secret Service: exactly one exits 0, the others exit 10", .needs(CLINeeds.secretService))
    func concurrentStoresHaveOneWinnerOnTheSecretService() async throws {
        try await concurrentStoresHaveOneWinner(.secretService)
    }

    func concurrentStoresHaveOneWinner(_ store: Store) async throws {
        let sandbox = try CLISandbox(keepSessionBus: store == .secretService)
        defer { sandbox.remove() }
        let service = "bv-cli-race-\(UUID().uuidString.prefix(8))"
        let common = ["--service", service, "--store", store.rawValue, "--authenticator", "none"]
        try await withCleanup { () async throws -> Void in
            for round in 0..<8 {
                let results = try await sandbox.runConcurrently(
                    (0..<4).map { writer in (["store", "race"] + common, #"{"writer":\#(writer)}"#) })
                let winners = results.filter { $0.status == 0 }
                #expect(winners.count == 1, "round \(round): \(winners.count) stores succeeded: \(results.map(\.stderr))")
                for loser in results where loser.status != 0 {
                    #expect(loser.status == 10, "round \(round): \(loser.stderr)")
                }
                let shown = try await sandbox.run(["show", "race"] + common)
                #expect(shown.status == 0)
                let winner = try #require(results.firstIndex { $0.status == 0 })
                #expect(shown.stdout.contains(#""writer":\#(winner)"#), "the stored item is not the winner's: \(shown.stdout)")
                let reset = try await sandbox.run(["reset", "race"] + common)
                #expect(reset.status == 0, "round \(round): \(reset.stderr)")
            }
        } cleanup: {
            _ = try? await sandbox.run(["reset", "race"] + common)
        }
    }

    @Test("`update` waiting for the file store's lock while another process deletes the item: exit 2, the item stays deleted")
    func updateAfterAConcurrentDeleteDoesNotResurrect() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let common = ["--store", "file", "--authenticator", "none"]
        #expect(try await sandbox.run(["store", "k"] + common, stdin: #"{"v":1}"#).status == 0)
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

        let update = try await sandbox.start(executable: CLISandbox.binary, ["update", "k"] + common, stdin: #"{"v":2}"#)
        // The update has read the item and now waits for the lock to write it.
        #expect(
            await waitUntilWaitingForLock(pid: update.processIdentifier, lockPath: directory.appendingPathComponent(".lock").path),
            "the update never waited for the lock")
        // Inside the lock, the other writer deletes the item, then lets go.
        #expect(unlink(directory.appendingPathComponent(itemFile).path) == 0)
        #expect(flock(lock, LOCK_UN) == 0)
        #expect(try await update.result().status == 2, "update of a deleted item must fail with 'not found'")
        let status = try await sandbox.run(["show", "k"] + common)
        #expect(status.status == 2, "the deleted item came back: \(status.stdout)")
    }
}

/// Whether `pid` has opened `lockPath`, the lock another process holds (bounded wait): it opens the
/// lock file only to take the lock, and tries again (non-blocking, with a bounded total wait) until
/// it gets it.
func waitUntilWaitingForLock(pid: Int32, lockPath: String) async -> Bool {
    let descriptors = "/proc/\(pid)/fd"
    for _ in 0..<400 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
        if names.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)) == lockPath }) {
            return true
        }
        try? await Task.sleep(for: .milliseconds(25))
    }
    return false
}

extension CLISandbox {
    /// Starts every run at once and waits for all of them.
    func runConcurrently(_ runs: [(arguments: [String], stdin: String)]) async throws -> [CLIResult] {
        var started: [CLIProcess] = []
        for run in runs { started.append(try await start(executable: Self.binary, run.arguments, stdin: run.stdin)) }
        var results: [CLIResult] = []
        for process in started { results.append(try await process.result()) }
        return results
    }
}
#endif
