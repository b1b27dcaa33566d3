#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultTestSupport
import Foundation
import Testing

/// Real processes against one store directory: `FileStoreStressHelper`, built beside this test bundle.
@Suite("EncryptedFileStore across processes", .onTestThreads, .serialized)
struct MultiProcessTests {
    @Test("two processes x 1,000 locked updates of one key: every read decodes, no update is lost")
    func twoProcessesUpdatingOneKey() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.storeURL
        // Create the store first, so both helpers open the same key.
        let store = try EncryptedFileStore(directory: root)
        let id = try SecretItemID(service: "svc", key: "shared")
        try store.write(item("seed:0:0:" + String(repeating: "p", count: 100)), for: id, authorization: nil)

        let updates = 1_000
        var helpers: [(process: ChildProcess, output: FileHandle, errors: FileHandle)] = []
        for tag in ["one", "two"] {
            helpers.append(try await StressHelper.start(["update", root.path, "svc", "shared", "\(updates)", tag]))
        }
        // Meanwhile this process reads continuously: every read must decode to a complete value.
        var reads = 0
        while helpers.contains(where: { $0.process.isRunning }) {
            let value = try #require(try store.read(id, authorization: nil))
            #expect(Self.parse(value) != nil)
            reads += 1
            try await Task.sleep(for: .microseconds(300))
        }
        for helper in helpers {
            let exit = try await helper.process.exit()
            let errors = String(decoding: helper.errors.readDataToEndOfFile(), as: UTF8.self)
            #expect(exit.code == 0 && !exit.signalled, "helper failed: \(errors)")
        }
        let final = try #require(Self.parse(try store.read(id, authorization: nil)))
        #expect(["one", "two"].contains(final.tag), "the final value was not written by a helper")
        #expect(final.sequence == updates, "the last update of the process that finished last")
        #expect(final.counter == 2 * updates, "an update was lost: \(final.counter)")
        #expect(reads > 0)
        #expect(try store.keys(service: "svc") == ["shared"])
    }

    @Test("kill -9 a writer 50 times mid-loop: every item still decodes")
    func killNineWhileWriting() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.storeURL
        let store = try EncryptedFileStore(directory: root)
        let keyCount = 4
        let ids = try (0..<keyCount).map { try SecretItemID(service: "svc", key: "k\($0)") }
        for id in ids { try store.write(item("seed:0:0:" + String(repeating: "p", count: 100)), for: id, authorization: nil) }

        var generator = SystemRandomNumberGenerator()
        var highest = 0
        for round in 0..<50 {
            let helper = try await StressHelper.start(["write-loop", root.path, "svc", "\(keyCount)"])
            // Wait until it has written a full round, then kill it at a random point of a later write.
            let ready = helper.output.availableData
            #expect(String(decoding: ready, as: UTF8.self).hasPrefix("ready"), "round \(round): helper did not start")
            try await Task.sleep(for: .microseconds(Int.random(in: 0...8_000, using: &generator)))
            #expect(kill(helper.process.processIdentifier, SIGKILL) == 0)
            #expect(try await helper.process.exit().signalled)

            for id in ids {
                let value = try #require(try store.read(id, authorization: nil), "round \(round): \(id.key) vanished")
                let parsed = try #require(Self.parse(value), "round \(round): \(id.key) does not decode")
                highest = max(highest, parsed.sequence)
            }
            #expect(try store.keys(service: "svc") == ids.map(\.key))
        }
        #expect(highest > 0)
        // No temporary files pile up: a crashed writer's file is reused by the next writer.
        let leftovers = try allFiles(under: root).map { URL(fileURLWithPath: $0.path).lastPathComponent }.filter { $0.hasPrefix(".") && $0 != ".lock" && $0 != ".check" }
        #expect(leftovers.count <= 1, "\(leftovers)")
    }

    @Test("a write failing for lack of space (RLIMIT_FSIZE) is storeUnavailable with errno EFBIG; the old item stays")
    func fileSizeLimit() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.storeURL
        let store = try EncryptedFileStore(directory: root)
        let id = try SecretItemID(service: "svc", key: "big")
        try store.write(item("old"), for: id, authorization: nil)
        let result = try await StressHelper.run(["fsize-limit", root.path, "svc", "big"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "storeUnavailable errno \(EFBIG)")
        #expect(text(of: try store.read(id, authorization: nil)) == "old")
    }

    /// "tag:sequence:counter:padding", as the helper writes it.
    static func parse(_ item: StoredItem?) -> (tag: String, sequence: Int, counter: Int)? {
        guard let value = text(of: item) else { return nil }
        let fields = value.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 4, let sequence = Int(fields[1]), let counter = Int(fields[2]),
            fields[3].allSatisfy({ $0 == "p" }), fields[3].count == 100 + sequence % 300
        else { return nil }
        return (String(fields[0]), sequence, counter)
    }
}
