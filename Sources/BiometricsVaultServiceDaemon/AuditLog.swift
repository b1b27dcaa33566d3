#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultJSON
import BiometricsVaultProcess
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The vault service's audit log: one JSON object per line for every read, write, delete, refusal,
/// authentication, window opened and window closed, in `audit/<uid>.log` under the state directory
/// (0600, the service's user), so `Audit` can give each user their own entries and no one else's. Each
/// line also goes to the service's stderr, which systemd puts in the journal.
///
/// Entries name the item (its service and key), never a secret. The program is what the kernel shows any
/// user about the caller's process: its name (`comm`), its `argv[0]`, and the names of its parents up to
/// its session's leader. These are what the process calls itself: the service runs as its own user
/// without `CAP_SYS_PTRACE`, so it cannot read another user's `/proc/PID/exe`.
///
/// The log is the caller's to fill but not to erase unseen: every text a caller chose is cut to
/// ``fieldLimit`` bytes (its whole length noted), a user's refusals past ``refusalsPerMinute`` are
/// counted into one summary entry, and the log keeps ``rotations`` older files of ``rotationSize``; when
/// the oldest goes, the next file starts with an entry that says so and until when it held entries.
final class AuditLog: Sendable {
    let directory: String
    /// A user's log moves to `<uid>.log.1` past this size, `.1` to `.2`, and so on.
    static let rotationSize = 1 << 20
    /// The older files kept; the oldest beyond this is removed (a marker entry says so).
    static let rotations = 4
    /// The bytes kept of an item name, a command or a result, which the caller chose.
    static let fieldLimit = 256
    /// The refusals of one user written one by one per minute; the others are counted.
    static let refusalsPerMinute = 30
    /// The most bytes of entries one `Audit` returns (the newest).
    static let replyLimit = 1 << 20

    private struct Refusals {
        var minute: Int64 = 0
        var written = 0
        var counted = 0
    }

    private let refusals = LockedValue<[UInt32: Refusals]>([:])
    private let lock = LockedValue(())
    /// Whether each entry also goes to stderr (the journal).
    private let journals: Bool

    init(stateDirectory: String, journals: Bool = true) {
        directory = stateDirectory + "/audit"
        self.journals = journals
    }

    /// Appends one entry for `caller`; a log that cannot be written is said on stderr, and the request
    /// goes on (the journal line is written either way).
    func record(_ caller: Caller, _ event: String, item: String? = nil, result: String) {
        if result.hasPrefix("refused"), !admitRefusal(uid: caller.uid) { return }
        var fields: [String: JSONValue] = ["pid": .integer(Int64(caller.processID))]
        let program = Self.program(pid: caller.processID)
        fields["program"] = .string(program.name)
        if let command = program.command { Self.bounded(command, as: "command", into: &fields) }
        fields["parents"] = .array(program.parents.map { .string($0) })
        append(uid: caller.uid, event, item: item, result: result, fields)
    }

    /// Appends one entry to `uid`'s log for something no caller asked (a screen lock signalled).
    func record(uid: UInt32, _ event: String, result: String) {
        append(uid: uid, event, item: nil, result: result, ["program": .string("(the system)")])
    }

    /// Whether this refusal of `uid` is written on its own: the first ``refusalsPerMinute`` of a minute
    /// are; the rest are counted into a summary entry written before the user's next entry.
    private func admitRefusal(uid: UInt32) -> Bool {
        let minute = Int64(Glibc.time(nil)) / 60
        return refusals.withLock { all in
            var counts = all[uid] ?? Refusals()
            if counts.minute != minute { counts.minute = minute; counts.written = 0 }
            defer { all[uid] = counts }
            guard counts.written < Self.refusalsPerMinute else {
                counts.counted += 1
                return false
            }
            counts.written += 1
            return true
        }
    }

    /// `text` as the member `name` of `fields`, cut to ``fieldLimit`` bytes (at a character boundary)
    /// with its whole length in `<name>Bytes` when it was longer.
    static func bounded(_ text: String, as name: String, into fields: inout [String: JSONValue]) {
        let bytes = text.utf8.count
        guard bytes > fieldLimit else {
            fields[name] = .string(text)
            return
        }
        var kept = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            guard count + size <= fieldLimit else { break }
            kept.append(character)
            count += size
        }
        fields[name] = .string(kept + "…")
        fields[name + "Bytes"] = .integer(Int64(bytes))
    }

    private func append(uid: UInt32, _ event: String, item: String?, result: String, _ extra: [String: JSONValue]) {
        var lines: [String] = []
        let counted = refusals.withLock { all -> Int in
            defer { all[uid]?.counted = 0 }
            return all[uid]?.counted ?? 0
        }
        if counted > 0 {
            lines.append(Self.line(uid: uid, [
                "event": .string("refusals"), "count": .integer(Int64(counted)),
                "result": .string("\(counted) more refusal(s) counted, not written one by one (over \(Self.refusalsPerMinute) a minute)"),
            ]))
        }
        var fields = extra
        fields["event"] = .string(event)
        Self.bounded(result, as: "result", into: &fields)
        if let item { Self.bounded(item, as: "item", into: &fields) }
        lines.append(Self.line(uid: uid, fields))
        for line in lines where journals {
            let journal = Array("audit: \(line)\n".utf8)
            _ = journal.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
        lock.withLock { _ in
            if mkdir(directory, 0o700) != 0 && errno != EEXIST { return }
            let path = "\(directory)/\(uid).log"
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_size) > Self.rotationSize, let marker = rotate(path, uid: uid) {
                lines.insert(marker, at: 0)
            }
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// Moves `path` to `.1`, each older file one further, and removes the one past ``rotations``; the
    /// marker entry that says so when one was removed.
    private func rotate(_ path: String, uid: UInt32) -> String? {
        let oldest = "\(path).\(Self.rotations)"
        let dropped = Self.contents(of: oldest).flatMap { Self.time(ofLastLineIn: $0) }
        for index in stride(from: Self.rotations - 1, through: 1, by: -1) { rename("\(path).\(index)", "\(path).\(index + 1)") }
        rename(path, path + ".1")
        guard let dropped else { return nil }
        return Self.line(uid: uid, [
            "event": .string("auditDropped"), "until": .integer(dropped),
            "result": .string("older entries were removed, up to the one at \(dropped) (\(Self.rotations + 1) files of about \(Self.rotationSize >> 20) MiB are kept)"),
        ])
    }

    private static func line(uid: UInt32, _ fields: [String: JSONValue]) -> String {
        var fields = fields
        fields["time"] = .integer(Int64(Glibc.time(nil)))
        fields["uid"] = .integer(Int64(uid))
        return JSONValue.object(fields).jsonText
    }

    /// The `time` of an entry line: any `"time":` in it is its member (a quote inside a string is
    /// escaped, so no string holds that text); looked for from the end, near which it is (members are
    /// sorted by name, and only numbers follow it).
    static func time(of line: Substring) -> Int64? {
        let bytes = Array(line.utf8)
        let key = Array("\"time\":".utf8)
        guard bytes.count > key.count,
            let start = (0...(bytes.count - key.count)).reversed().first(where: { bytes[$0..<($0 + key.count)].elementsEqual(key) })
        else { return nil }
        let digits = bytes[(start + key.count)...].prefix { $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    private static func time(ofLastLineIn bytes: [UInt8]) -> Int64? {
        let text = String(decoding: bytes.suffix(4 * fieldLimit + 1024), as: UTF8.self)
        return text.split(separator: "\n").last.flatMap { time(of: $0) }
    }

    /// `uid`'s entries at or after `since` (seconds since the epoch), oldest first: the newest, at most
    /// `limit` of them and ``replyLimit`` bytes. Reads at most the kept files, whose size is bounded.
    func entries(uid: UInt32, since: Int64, limit: Int = 10_000) -> [String] {
        let paths = (1...Self.rotations).reversed().map { "\(directory)/\(uid).log.\($0)" } + ["\(directory)/\(uid).log"]
        let files = lock.withLock { _ in paths.compactMap { Self.contents(of: $0) } }
        var selected: [Substring] = []
        var bytes = 0
        for file in files.reversed() {
            let text = String(decoding: file, as: UTF8.self)
            for line in text.split(separator: "\n").reversed() {
                guard let at = Self.time(of: line), at >= since else { continue }
                guard selected.count < limit, bytes + line.utf8.count <= Self.replyLimit else { return selected.reversed().map(String.init) }
                selected.append(line)
                bytes += line.utf8.count
            }
        }
        return selected.reversed().map(String.init)
    }

    /// The caller's process as any user may see it: its name, its `argv[0]`, and its parents' names
    /// up to its session's leader (at most eight).
    static func program(pid: UInt32) -> (name: String, command: String?, parents: [String]) {
        let own = processStat(of: pid)
        var parents: [String] = []
        var next = own?.parent ?? 0
        while next > 1, parents.count < 8, let parent = processStat(of: next) {
            parents.append(parent.name)
            if parent.isSessionLeader { break }
            next = parent.parent
        }
        let command = contents(of: "/proc/\(pid)/cmdline")
            .flatMap { $0.split(separator: 0, maxSplits: 1).first }
            .map { String(decoding: $0, as: UTF8.self) }
        return (own?.name ?? "?", command, parents)
    }

    /// The caller's process in words, for a prompt: `name (argv[0]), started by parent < grandparent`.
    static func describe(pid: UInt32) -> String {
        let program = program(pid: pid)
        var text = program.name
        if let command = program.command, !command.isEmpty, command != program.name { text += " (\(command))" }
        if !program.parents.isEmpty { text += ", started by " + program.parents.joined(separator: " < ") }
        return text
    }

    /// `comm`, the parent's pid and whether the process leads its session, from `/proc/PID/stat`. Read
    /// by bytes, as ``ProcessStat`` reads it: the name is the process's own choice, and one ending in a
    /// prepended mark would make its closing `)` one Character with it.
    private static func processStat(of pid: UInt32) -> (name: String, parent: UInt32, isSessionLeader: Bool)? {
        guard let bytes = contents(of: "/proc/\(pid)/stat") else { return nil }
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close,
            let stat = ProcessStat.parse(String(decoding: bytes, as: UTF8.self))
        else { return nil }
        return (String(decoding: bytes[(open + 1)..<close], as: UTF8.self), UInt32(clamping: stat.parent), stat.session == Int(pid))
    }

    /// The whole of a file, read with plain `read`s until its end (a `/proc` file says its size is 0);
    /// `nil` when it cannot be opened or read. Not `FileManager.contents(atPath:)`: on a `/proc` file
    /// it leaves a 4 KiB buffer behind (LeakSanitizer saw it at the service's exit).
    static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }
}
#endif
