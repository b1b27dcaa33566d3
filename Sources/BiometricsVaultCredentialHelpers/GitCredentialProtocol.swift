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

/// What the git credential helper stores: the attributes of one credential (gitcredentials(7)), stored
/// as a plain JSON object named as git names them, which `show KEY --field password` also reads.
package struct GitCredentialItem: Sendable, Equatable {
    package var scheme: String
    package var host: String
    package var path: String?
    package var username: String?
    package var password: String?
    package var passwordExpiryUTC: String?
    package var oauthRefreshToken: String?

    /// The item as the attribute lines `get` answers with; `nil` when a value could not be written as
    /// one protocol line (a line feed, carriage return or NUL, possible only in an item changed by hand).
    /// Checked scalar by scalar: `"\r\n"` is one Character, which a Character comparison with `"\n"` misses.
    package var protocolText: String? {
        let attributes: [(String, String?)] = [
            ("protocol", scheme), ("host", host), ("username", username), ("password", password),
            ("password_expiry_utc", passwordExpiryUTC), ("oauth_refresh_token", oauthRefreshToken),
        ]
        var text = ""
        for case (let name, let value?) in attributes {
            guard !value.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else { return nil }
            text += "\(name)=\(value)\n"
        }
        return text
    }

    /// Whether `password_expiry_utc` (seconds since the epoch) is before `now`. As git reads it: a value
    /// that is not a positive number never expires.
    package func isExpired(now: Int64) -> Bool {
        guard let text = passwordExpiryUTC, let expiry = Int64(text), expiry > 0 else { return false }
        return expiry <= now
    }

    /// Whether the item is the credential `request` names: protocol, host and path equal, and the username
    /// when the request has one (an empty username is a username, as git compares them).
    package func answers(_ request: GitCredentialRequest) -> Bool {
        guard scheme == request.scheme, host == request.host, (path ?? "") == (request.path ?? "") else { return false }
        if let wanted = request.username { return username == wanted }
        return true
    }
}

/// The attributes git wrote on the helper's stdin: `name=value` lines up to a blank line or EOF.
/// Unknown attributes and array attributes (`name[]=`) are ignored; a repeated name keeps the last value.
/// An attribute given with an empty value is present (`username=` is an empty username, as in git), except
/// `path`, which git sends empty when it has none.
package struct GitCredentialRequest: Sendable, Equatable {
    package var attributes: [String: String] = [:]

    /// The most bytes of one request: git's attribute lines are short, so more is refused as a whole
    /// rather than cut (a cut password would be stored without a word).
    package static let readLimit = 64 * 1024

    package init(attributes: [String: String]) {
        self.attributes = attributes
    }

    /// Parses the request's bytes (up to, not including, the blank line that ends it). Strict: the bytes
    /// must be UTF-8 (a lenient decoding would turn two different usernames into one key and alter
    /// passwords), and no value may hold a NUL or a carriage return (only a line's last CR is dropped).
    package init(parsing bytes: [UInt8]) throws(CredentialHelperInputError) {
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = line.last == 0x0D ? line.dropLast() : line
            if line.isEmpty { break }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw CredentialHelperInputError("git's request is not valid UTF-8 text; nothing was read or stored")
            }
            guard let equals = text.unicodeScalars.firstIndex(of: "=") else { continue }
            let name = String(text.unicodeScalars[..<equals])
            if name.hasSuffix("[]") { continue }
            let value = String(text.unicodeScalars[text.unicodeScalars.index(after: equals)...])
            if value.unicodeScalars.contains(where: { $0 == "\0" || $0 == "\r" }) {
                throw CredentialHelperInputError("git's request has a NUL or carriage return inside the value of '\(name)'; nothing was read or stored")
            }
            attributes[name] = value
        }
    }

    package var scheme: String? { attributes["protocol"] }
    package var host: String { attributes["host"] ?? "" }
    package var path: String? { attributes["path"].flatMap { $0.isEmpty ? nil : $0 } }
    package var username: String? { attributes["username"] }
    package var password: String? { attributes["password"] }

    /// The item `store` keeps, with the newer attributes git may send.
    package var item: GitCredentialItem? {
        guard let scheme else { return nil }
        return GitCredentialItem(
            scheme: scheme, host: host, path: path, username: username, password: password,
            passwordExpiryUTC: attributes["password_expiry_utc"], oauthRefreshToken: attributes["oauth_refresh_token"])
    }

    /// Reads one request from `descriptor` (the helper's stdin): up to its blank line (`\n\n` or
    /// `\r\n\r\n`: a client that keeps the pipe open after it is answered too) or EOF, at most
    /// ``readLimit`` bytes, and parses it. The bytes read are zeroed before it returns.
    package static func read(from descriptor: Int32) throws(CredentialHelperInputError) -> GitCredentialRequest {
        var reader = RequestReader(limit: readLimit)
        defer { reader.erase() }
        guard let request = reader.readUntilBlankLine(from: descriptor) else {
            throw CredentialHelperInputError("git's request is longer than \(readLimit / 1024) KiB; nothing was stored")
        }
        return try GitCredentialRequest(parsing: request)
    }
}

/// The vault keys of git credentials, readable in `list`:
/// `git:PROTOCOL:[USERNAME@]HOST[:PATH]`, e.g. `git:https:alice@github.com` or
/// `git:https:alice@github.com:org%2Frepo.git`; an empty username gives `git:https:@sso.example`. Each part
/// is encoded by ``CredentialHelperKey`` (`%`, `:`, `@`, `/`, `\` and what the vault refuses in a key
/// percent-encoded; a key too long for the vault gets digests), so the separators are unambiguous and two
/// requests share a key only when they are the same request.
package enum GitCredentialKey {
    package static let prefix = "git:"

    /// Whether `key` is one of this helper's keys (it starts with ``prefix``).
    package static func isKey(_ key: String) -> Bool {
        CredentialHelperKey.rest(of: key, after: prefix) != nil
    }

    package static func key(scheme: String, host: String, path: String?, username: String?) -> String {
        var parts: [(separator: String, value: String)] = [("", scheme)]
        if let username {
            parts += [(":", username), ("@", host)]
        } else {
            parts.append((":", host))
        }
        if let path { parts.append((":", path)) }
        return CredentialHelperKey.key(prefix: prefix, parts: parts)
    }

    package static func key(for request: GitCredentialRequest) -> String? {
        guard let scheme = request.scheme else { return nil }
        return key(scheme: scheme, host: request.host, path: request.path, username: request.username)
    }

    /// The stored keys `request` matches, best first: its exact key when it names a username; else the
    /// item stored without a username, then those of any username, the empty one included (sorted). The
    /// path must match exactly.
    package static func matches(_ request: GitCredentialRequest, among keys: [String]) -> [String] {
        guard let scheme = request.scheme else { return [] }
        if request.username != nil {
            return key(for: request).map { keys.contains($0) ? [$0] : [] } ?? []
        }
        var withoutUser: [String] = []
        var withUser: [String] = []
        for key in keys {
            guard let parts = Parts(key), CredentialHelperKey.part(parts.scheme, names: scheme),
                CredentialHelperKey.part(parts.host, names: request.host)
            else { continue }
            switch (parts.path, request.path) {
            case (nil, nil): break
            case (let stored?, let wanted?): guard CredentialHelperKey.part(stored, names: wanted) else { continue }
            case (nil, _?), (_?, nil): continue
            }
            if parts.username == nil { withoutUser.append(key) } else { withUser.append(key) }
        }
        return withoutUser.sorted() + withUser.sorted()
    }

    /// A stored git key split at its separators (which encoded parts never contain).
    struct Parts {
        var scheme: Substring
        var username: Substring?
        var host: Substring
        var path: Substring?

        init?(_ key: String) {
            guard let rest = CredentialHelperKey.rest(of: key, after: GitCredentialKey.prefix) else { return nil }
            let fields = CredentialHelperKey.split(rest, at: ":")
            guard fields.count == 2 || fields.count == 3 else { return nil }
            scheme = fields[0]
            let userAndHost = CredentialHelperKey.split(fields[1], at: "@", maxSplits: 1)
            if userAndHost.count == 2 {
                username = userAndHost[0]
                host = userAndHost[1]
            } else {
                host = userAndHost[0]
            }
            if fields.count == 3 { path = fields[2] }
        }
    }
}
