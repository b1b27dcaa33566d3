#if os(Linux)
import BiometricsVaultCore
import Glibc

/// What each user may keep in and ask of the vault service, which every user of the machine shares (its
/// state directory is on a partition the whole machine uses, its reader is one): at most
/// ``maximumItems`` items and ``maximumBytes`` bytes of item files, ``maximumCalls`` calls in progress
/// at once, ``maximumPromptsPerMinute`` checks started in any 60 s. An administrator sets them in
/// ``path``: one `key = value` per line (`max-items`, `max-bytes`, `max-calls`,
/// `max-prompts-per-minute`, whole numbers; `unseen-checks`, `refuse` or `allow`), `#` to the end of a
/// line a comment; read when the service starts. A write that would pass them is refused whole (`storeFull`, as a full disk is) and nothing
/// is written; a call past them is refused at once (``CallAdmission``).
struct ServiceLimits: Sendable, Equatable {
    static let path = "/etc/biometrics-vault/service.conf"
    var maximumItems = 10_000
    var maximumBytes = 64 << 20
    /// Calls of one user in progress at once (a prompt, a read, a listing); `Lock`, `Revoke`,
    /// `CancelAuthentication` and `CancelPrompt`, which only end things, and `Attest`, which holds
    /// nothing, are not counted.
    var maximumCalls = 32
    /// Checks (a finger or the password) one user's calls start in any 60 s: one a second, past any
    /// person's pace, far below a script's. A read inside an unlock window is no check.
    var maximumPromptsPerMinute = 60
    /// Whether a check at the reader runs when nothing shows it: no prompter registered for the user and
    /// the caller without a terminal (`unseen-checks = allow`, for a machine with a reader and no
    /// desktop). Refused by default: a finger given to a prompt nobody sees may be meant for another.
    var allowsUnseenChecks = false

    /// The limits `text` sets over the defaults, and what was wrong in it (ignored), a line each.
    static func parse(_ text: String) -> (limits: ServiceLimits, notices: [String]) {
        var limits = ServiceLimits()
        var notices: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.prefix { $0 != "#" }
            if line.allSatisfy(\.isWhitespace) { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.filter { !$0.isWhitespace } }
            if parts.count == 2, parts[0] == "unseen-checks" {
                switch parts[1] {
                case "refuse": limits.allowsUnseenChecks = false
                case "allow": limits.allowsUnseenChecks = true
                default: notices.append("\(path):\(index + 1): ignored (unseen-checks is refuse or allow)")
                }
                continue
            }
            guard parts.count == 2, let value = Int(parts[1]), value >= 0 else {
                notices.append("\(path):\(index + 1): ignored (not `key = a whole number`)")
                continue
            }
            switch parts[0] {
            case "max-items": limits.maximumItems = value
            case "max-bytes": limits.maximumBytes = value
            case "max-calls": limits.maximumCalls = value
            case "max-prompts-per-minute": limits.maximumPromptsPerMinute = value
            default:
                notices.append("\(path):\(index + 1): ignored (the keys are max-items, max-bytes, max-calls, max-prompts-per-minute and unseen-checks)")
            }
        }
        return (limits, notices)
    }

    /// The limits of ``path``, the defaults without it; `log` says what was ignored.
    static func load(log: (String) -> Void) -> ServiceLimits {
        guard let bytes = AuditLog.contents(of: path) else { return ServiceLimits() }
        let (limits, notices) = parse(String(decoding: bytes.prefix(65_536), as: UTF8.self))
        notices.forEach(log)
        return limits
    }

    /// The items and bytes of the store in `directory` (its service directories' item files).
    static func usage(of directory: String) -> (items: Int, bytes: Int) {
        var items = 0
        var bytes = 0
        for service in entries(of: directory) {
            let path = directory + "/" + service
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            for file in entries(of: path) where file.hasSuffix(".bvi") {
                guard lstat(path + "/" + file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                items += 1
                bytes += Int(info.st_size)
            }
        }
        return (items, bytes)
    }

    /// Refuses a write of `payload` bytes, a new item when `adding`, that would pass the limits of a
    /// store using `usage`. A replaced item's own bytes still count: a store past its bytes takes no
    /// write, one just under it takes one more item's worth at most.
    func check(_ usage: (items: Int, bytes: Int), adding: Bool, payload: Int) throws(VaultError) {
        if adding, usage.items >= maximumItems {
            throw VaultError(.storeFull, underlying: .message(
                "this user's items in the vault service are at their limit (\(maximumItems) items; \(Self.path) sets it)"))
        }
        if usage.bytes + (adding ? payload : 0) > maximumBytes {
            throw VaultError(.storeFull, underlying: .message(
                "this user's items in the vault service are at their limit (\(maximumBytes) bytes; \(Self.path) sets it)"))
        }
    }

    private static func entries(of path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// Each user's calls in progress and checks of the last minute, held to ``ServiceLimits``: one user's
/// flood of calls or prompts is refused at once and takes nothing from another user's.
final class CallAdmission: Sendable {
    let limits: ServiceLimits
    private let calls = LockedValue<[UInt32: Int]>([:])
    private let checks = LockedValue<[UInt32: [ContinuousClock.Instant]]>([:])

    init(limits: ServiceLimits) { self.limits = limits }

    /// Counts a call of `uid` as in progress until ``end(uid:)``, or refuses it (`storeUnavailable`)
    /// when the user already has ``ServiceLimits/maximumCalls`` in progress.
    func begin(uid: UInt32) throws(VaultError) {
        let admitted = calls.withLock { calls -> Bool in
            guard calls[uid, default: 0] < limits.maximumCalls else { return false }
            calls[uid, default: 0] += 1
            return true
        }
        guard admitted else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "this user has \(limits.maximumCalls) calls in progress, the most the vault service takes at once (\(ServiceLimits.path) sets it)"))
        }
    }

    func end(uid: UInt32) {
        calls.withLock { calls in
            calls[uid, default: 1] -= 1
            if calls[uid] == 0 { calls[uid] = nil }
        }
    }

    /// Counts a check of `uid` starting `now`, or refuses it (`interactionNotAllowed`) when the user's
    /// calls started ``ServiceLimits/maximumPromptsPerMinute`` in the 60 s before.
    func admitCheck(uid: UInt32, now: ContinuousClock.Instant = .now) throws(VaultError) {
        let admitted = checks.withLock { checks -> Bool in
            var recent = checks[uid, default: []].filter { now - $0 < .seconds(60) }
            defer { checks[uid] = recent.isEmpty ? nil : recent }
            guard recent.count < limits.maximumPromptsPerMinute else { return false }
            recent.append(now)
            return true
        }
        guard admitted else {
            throw VaultError(.interactionNotAllowed, underlying: .message(
                "this user's calls started \(limits.maximumPromptsPerMinute) checks in the last minute, the most the vault service shows (\(ServiceLimits.path) sets it): try again in a minute"))
        }
    }
}
#endif
