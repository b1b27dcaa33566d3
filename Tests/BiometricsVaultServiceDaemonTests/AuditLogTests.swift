#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultJSON
import Foundation
import Glibc
import Testing

/// The audit log a caller fills but cannot erase unseen: bounded entries, rotations with a marker,
/// refusals counted past their rate, replies of bounded size.
@Suite final class AuditLogTests {
    let directory: URL
    let log: AuditLog
    let caller = Caller(connection: ":1.1", uid: 4242, pid: UInt32(getpid()), process: nil)

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bv-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = AuditLog(stateDirectory: directory.path, journals: false)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The files of the test user's log, newest last, as lines.
    func files() -> [(name: String, lines: [Substring], size: Int)] {
        let names = (1...AuditLog.rotations).reversed().map { "4242.log.\($0)" } + ["4242.log"]
        return names.compactMap { name in
            guard let data = FileManager.default.contents(atPath: "\(log.directory)/\(name)") else { return nil }
            return (name, String(decoding: data, as: UTF8.self).split(separator: "\n"), data.count)
        }
    }

    func members(_ line: some StringProtocol) -> [String: JSONValue] {
        guard case .object(let members)? = try? JSONValue.parse(Array(line.utf8)) else { return [:] }
        return Dictionary(members.map { ($0.name.value, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test(arguments: [("item", 2 << 20), ("item", AuditLog.fieldLimit + 1), ("result", 100_000)])
    func aLongTextACallerChoseIsCutAndItsLengthNoted(field: String, bytes: Int) throws {
        let text = String(repeating: "é", count: bytes / 2) + (bytes % 2 == 1 ? "x" : "")
        if field == "item" {
            log.record(caller, "read", item: "biometrics-vault/" + text, result: "refused: invalidKey")
        } else {
            log.record(caller, "authenticate", result: text)
        }
        let lines = try #require(files().last?.lines)
        #expect(lines.count == 1)
        #expect(lines[0].utf8.count < 2 * AuditLog.fieldLimit + 512, "\(lines[0].utf8.count) bytes")
        let entry = members(lines[0])
        guard case .number(let whole)? = entry[field + "Bytes"], case .string(let kept)? = entry[field] else {
            Issue.record("no \(field)Bytes in \(lines[0])")
            return
        }
        #expect(Int(whole.literal) == (field == "item" ? "biometrics-vault/".utf8.count : 0) + text.utf8.count)
        #expect(kept.value.hasSuffix("…") && kept.value.utf8.count <= AuditLog.fieldLimit + 3)
    }

    @Test func aShortTextIsKeptWhole() throws {
        log.record(caller, "read", item: "biometrics-vault/token", result: "released")
        let entry = members(try #require(files().last?.lines.first))
        #expect(entry["item"] == .string("biometrics-vault/token"))
        #expect(entry["itemBytes"] == nil)
    }

    /// A flood of the largest entries a caller can make rotates the log, keeps the number of files and
    /// their size bounded, and leaves a marker that says until when entries were removed.
    @Test func aFloodRemovesOldEntriesOnlyWithAMarkerAndTheLogStaysBounded() throws {
        log.record(caller, "read", item: "biometrics-vault/before-the-flood", result: "released")
        let key = String(repeating: "k", count: 4 * AuditLog.fieldLimit)
        let floodBytes = (AuditLog.rotations + 2) * AuditLog.rotationSize
        var written = 0
        while written < floodBytes {
            log.record(caller, "read", item: "biometrics-vault/" + key, result: "absent")
            written += 2 * AuditLog.fieldLimit
        }
        let kept = files()
        #expect(kept.count == AuditLog.rotations + 1, "\(kept.map(\.name))")
        for file in kept { #expect(file.size <= AuditLog.rotationSize + 4 * AuditLog.fieldLimit, "\(file.name): \(file.size)") }
        let all = kept.flatMap(\.lines)
        #expect(!all.contains { $0.contains("before-the-flood") })
        let markers = all.filter { members($0)["event"] == .string("auditDropped") }
        #expect(!markers.isEmpty)
        // The newest marker is in a file that is kept, and every file removed since held entries up to it.
        let newest = try #require(markers.last.map { members($0) })
        guard case .number(let until)? = newest["until"] else {
            Issue.record("no until in \(newest)")
            return
        }
        #expect(Int64(until.literal).map { $0 <= Int64(time(nil)) } == true)
        // And `Audit` gives the marker too, within its reply's bound.
        let reply = log.entries(uid: caller.uid, since: 0)
        #expect(reply.reduce(0) { $0 + $1.utf8.count } <= AuditLog.replyLimit)
        #expect(reply.contains { $0.contains("\"auditDropped\"") } || reply.count * 2 * AuditLog.fieldLimit >= AuditLog.replyLimit)
    }

    /// Past the rate, refusals are counted, not written: the summary entry carries the count, and no
    /// refusal goes unaccounted for.
    @Test func refusalsPastTheirRateAreCountedInASummary() throws {
        let refusals = 3 * AuditLog.refusalsPerMinute
        for index in 0..<refusals {
            log.record(caller, "read", item: "biometrics-vault/missing-\(index)", result: "refused: invalidKey")
        }
        log.record(caller, "read", item: "biometrics-vault/after", result: "released")
        let lines = try #require(files().last?.lines)
        let written = lines.filter { members($0)["result"] == .string("refused: invalidKey") }.count
        let counted = lines.compactMap { line -> Int? in
            guard members(line)["event"] == .string("refusals"), case .number(let count)? = members(line)["count"] else { return nil }
            return Int(count.literal)
        }.reduce(0, +)
        #expect(written + counted == refusals, "\(written) written, \(counted) counted")
        #expect(written <= 2 * AuditLog.refusalsPerMinute)
        #expect(lines.last?.contains("biometrics-vault/after") == true)
        // Other events are not limited.
        #expect(lines.filter { $0.contains("\"released\"") }.count == 1)
    }

    @Test func theReplyIsTheNewestEntriesWithinItsBounds() throws {
        for index in 0..<50 { log.record(caller, "read", item: "biometrics-vault/item-\(index)", result: "released") }
        let newest = log.entries(uid: caller.uid, since: 0, limit: 10)
        #expect(newest.count == 10)
        #expect(newest.first?.contains("item-40") == true && newest.last?.contains("item-49") == true, "\(newest)")
        #expect(log.entries(uid: caller.uid, since: Int64(time(nil)) + 10).isEmpty)
        #expect(log.entries(uid: 1, since: 0).isEmpty)
    }

    @Test(arguments: [
        (#"{"event":"read","item":"a\"time\":5","time":1700000000,"uid":1}"#, Int64?(1_700_000_000)),
        (#"{"result":"x","time":-3,"uid":1,"until":9}"#, Int64?(-3)),
        (#"{"event":"read"}"#, Int64?.none),
    ])
    func anEntrysTimeIsItsMember(line: String, time: Int64?) {
        #expect(AuditLog.time(of: Substring(line)) == time)
    }
}
#endif
