#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the git credential helper stores: the attributes of one credential (gitcredentials(7)). Its own
/// type, so the stored JSON is a plain object that `show KEY --field password` also reads.
struct GitCredentialItem: Codable, Sendable, Equatable {
    var scheme: String
    var host: String
    var path: String?
    var username: String?
    var password: String?
    var passwordExpiryUTC: String?
    var oauthRefreshToken: String?

    enum CodingKeys: String, CodingKey {
        case scheme = "protocol"
        case host, path, username, password
        case passwordExpiryUTC = "password_expiry_utc"
        case oauthRefreshToken = "oauth_refresh_token"
    }

    /// The item as the attribute lines `get` answers with; `nil` when a value could not be written as
    /// one protocol line (a newline or NUL, possible only in an item changed by hand with `update`).
    var protocolText: String? {
        let attributes: [(String, String?)] = [
            ("protocol", scheme), ("host", host), ("username", username), ("password", password),
            ("password_expiry_utc", passwordExpiryUTC), ("oauth_refresh_token", oauthRefreshToken),
        ]
        var text = ""
        for case (let name, let value?) in attributes {
            guard !value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else { return nil }
            text += "\(name)=\(value)\n"
        }
        return text
    }
}

/// The attributes git wrote on the helper's stdin: `name=value` lines up to a blank line or EOF.
/// Unknown attributes and array attributes (`name[]=`) are ignored; a repeated name keeps the last value.
struct GitCredentialRequest: Sendable, Equatable {
    var attributes: [String: String] = [:]

    /// The most bytes read from git: its attribute lines are short, so more is not a credential request.
    static let readLimit = 64 * 1024

    init(attributes: [String: String]) {
        self.attributes = attributes
    }

    init(parsing text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = String(line[..<equals])
            if name.hasSuffix("[]") { continue }
            attributes[name] = String(line[line.index(after: equals)...])
        }
    }

    var scheme: String? { attributes["protocol"] }
    var host: String { attributes["host"] ?? "" }
    var path: String? { attributes["path"].flatMap { $0.isEmpty ? nil : $0 } }
    var username: String? { attributes["username"].flatMap { $0.isEmpty ? nil : $0 } }
    var password: String? { attributes["password"] }

    /// The item `store` keeps, with the newer attributes git may send.
    var item: GitCredentialItem? {
        guard let scheme else { return nil }
        return GitCredentialItem(
            scheme: scheme, host: host, path: path, username: username, password: password,
            passwordExpiryUTC: attributes["password_expiry_utc"], oauthRefreshToken: attributes["oauth_refresh_token"])
    }

    /// Reads the request from stdin (read(2) loop, bounded).
    static func readStandardInput() -> GitCredentialRequest {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < readLimit {
            let count = read(STDIN_FILENO, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count >= 2 && bytes[bytes.count - 2] == 0x0A && bytes[bytes.count - 1] == 0x0A { break }
        }
        defer {
            for index in bytes.indices { bytes[index] = 0 }
            for index in chunk.indices { chunk[index] = 0 }
        }
        return GitCredentialRequest(parsing: String(decoding: bytes, as: UTF8.self))
    }
}

/// The vault keys of git credentials, readable in `list`:
/// `git:PROTOCOL:[USERNAME@]HOST[:PATH]`, e.g. `git:https:alice@github.com` or
/// `git:https:alice@github.com:org%2Frepo.git`. Each part percent-encodes `%`, `:`, `@`, `/`, `\` and
/// control characters, so the separators are unambiguous (two requests share a key only when they
/// are the same request) and the key passes the vault's key rules (no path separators).
enum GitCredentialKey {
    static let prefix = "git:"

    static func key(scheme: String, host: String, path: String?, username: String?) -> String {
        var key = prefix + encode(scheme) + ":"
        if let username { key += encode(username) + "@" }
        key += encode(host)
        if let path { key += ":" + encode(path) }
        return key
    }

    static func key(for request: GitCredentialRequest) -> String? {
        guard let scheme = request.scheme else { return nil }
        return key(scheme: scheme, host: request.host, path: request.path, username: request.username)
    }

    /// The stored keys `request` matches, best first: its exact key when it names a username; else the
    /// item stored without a username, then those of any username (sorted). Path must match exactly.
    static func matches(_ request: GitCredentialRequest, among keys: [String]) -> [String] {
        guard let scheme = request.scheme else { return [] }
        if request.username != nil {
            return key(for: request).map { keys.contains($0) ? [$0] : [] } ?? []
        }
        let withoutUser = key(scheme: scheme, host: request.host, path: request.path, username: nil)
        let head = prefix + encode(scheme) + ":"
        let tail = "@" + encode(request.host) + (request.path.map { ":" + encode($0) } ?? "")
        let withUser = keys.filter { key in
            guard key.hasPrefix(head), key.hasSuffix(tail) else { return false }
            let user = key.dropFirst(head.count).dropLast(tail.count)
            return !user.isEmpty && !user.contains("@") && !user.contains(":")
        }.sorted()
        return (keys.contains(withoutUser) ? [withoutUser] : []) + withUser
    }

    static func encode(_ part: String) -> String {
        var encoded = ""
        for scalar in part.unicodeScalars {
            let reserved = scalar.value < 0x20 || scalar.value == 0x7F || "%:@/\\".unicodeScalars.contains(scalar)
            if reserved {
                for byte in String(scalar).utf8 { encoded += "%" + Text.hex(byte, digits: 2, uppercase: true) }
            } else {
                encoded.unicodeScalars.append(scalar)
            }
        }
        return encoded
    }
}

/// Writes to a file descriptor with a write(2) loop (FileHandle.write traps on EPIPE when git has
/// closed the pipe; here that is an error the caller ignores).
enum RawOutput {
    @discardableResult
    static func put(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            written += count
        }
        return true
    }
}
