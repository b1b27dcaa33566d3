#if os(Linux)
import BiometricsVaultCore
import Glibc

/// What each user may keep in the vault service, which every user of the machine shares (its state
/// directory is on a partition the whole machine uses): at most ``maximumItems`` items and
/// ``maximumBytes`` bytes of item files. An administrator sets them in ``path``: one `key = value` per
/// line (`max-items`, `max-bytes`, whole numbers), `#` to the end of a line a comment; read when the
/// service starts. A write that would pass them is refused whole (`storeUnavailable`, as a full disk is)
/// and nothing is written.
struct ServiceLimits: Sendable, Equatable {
    static let path = "/etc/biometrics-vault/service.conf"
    var maximumItems = 10_000
    var maximumBytes = 64 << 20

    /// The limits `text` sets over the defaults, and what was wrong in it (ignored), a line each.
    static func parse(_ text: String) -> (limits: ServiceLimits, notices: [String]) {
        var limits = ServiceLimits()
        var notices: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.prefix { $0 != "#" }
            if line.allSatisfy(\.isWhitespace) { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.filter { !$0.isWhitespace } }
            guard parts.count == 2, let value = Int(parts[1]), value >= 0 else {
                notices.append("\(path):\(index + 1): ignored (not `key = a whole number`)")
                continue
            }
            switch parts[0] {
            case "max-items": limits.maximumItems = value
            case "max-bytes": limits.maximumBytes = value
            default: notices.append("\(path):\(index + 1): ignored (the keys are max-items and max-bytes)")
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
            throw VaultError(.storeUnavailable, underlying: .message(
                "this user's items in the vault service are at their limit (\(maximumItems) items; \(Self.path) sets it)"))
        }
        if usage.bytes + (adding ? payload : 0) > maximumBytes {
            throw VaultError(.storeUnavailable, underlying: .message(
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
#endif
