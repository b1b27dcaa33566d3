#if os(Linux)
import BiometricsVaultAgent
import BiometricsVaultCore
import BiometricsVaultJSON
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
final class AuditLog: Sendable {
    let directory: String
    /// A user's log is moved to `<uid>.log.1` (replacing the older one) when it passes this size.
    static let rotationSize = 1 << 20
    private let lock = LockedValue(())

    init(stateDirectory: String) {
        directory = stateDirectory + "/audit"
    }

    /// Appends one entry for `caller`; a log that cannot be written is said on stderr, and the request
    /// goes on (the journal line is written either way).
    func record(_ caller: Caller, _ event: String, item: String? = nil, result: String) {
        var fields: [String: JSONValue] = ["pid": .integer(Int64(caller.processID))]
        let program = Self.program(pid: caller.processID)
        fields["program"] = .string(program.name)
        if let command = program.command { fields["command"] = .string(command) }
        fields["parents"] = .array(program.parents.map { .string($0) })
        append(uid: caller.uid, event, item: item, result: result, fields)
    }

    /// Appends one entry to `uid`'s log for something no caller asked (a screen lock signalled).
    func record(uid: UInt32, _ event: String, result: String) {
        append(uid: uid, event, item: nil, result: result, ["program": .string("(the system)")])
    }

    private func append(uid: UInt32, _ event: String, item: String?, result: String, _ extra: [String: JSONValue]) {
        var fields = extra
        fields["time"] = .integer(Int64(time(nil)))
        fields["uid"] = .integer(Int64(uid))
        fields["event"] = .string(event)
        fields["result"] = .string(result)
        if let item { fields["item"] = .string(item) }
        let line = JSONValue.object(fields).jsonText
        let journal = Array("audit: \(line)\n".utf8)
        _ = journal.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        lock.withLock { _ in
            if mkdir(directory, 0o700) != 0 && errno != EEXIST { return }
            let path = "\(directory)/\(uid).log"
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_size) > Self.rotationSize { rename(path, path + ".1") }
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// `uid`'s entries at or after `since` (seconds since the epoch), oldest first, at most `limit`
    /// (the newest ones).
    func entries(uid: UInt32, since: Int64, limit: Int = 10_000) -> [String] {
        let lines = lock.withLock { _ in
            ["\(directory)/\(uid).log.1", "\(directory)/\(uid).log"].flatMap { path -> [Substring] in
                guard let data = Self.contents(of: path) else { return [] }
                return String(decoding: data, as: UTF8.self).split(separator: "\n")
            }
        }
        let selected = lines.filter { line in
            guard case .object(let members)? = try? JSONValue.parse(Array(line.utf8)),
                case .number(let time)? = members.first(where: { $0.name.value == "time" })?.value, let at = Int64(time.literal)
            else { return false }
            return at >= since
        }
        return selected.suffix(limit).map(String.init)
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
