import BiometricsVaultJSON

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

/// docker's credential-helpers protocol (github.com/docker/docker-credential-helpers): what the helper
/// reads on stdin and prints on stdout, and the texts its clients (docker, containers/image as in podman,
/// skopeo, buildah) recognise.
package enum DockerCredentialProtocol {
    /// The answer of `get` (and `erase`) for a server with nothing stored; clients compare it verbatim.
    package static let notFoundMessage = "credentials not found in native keychain"
    package static let missingServerURLMessage = "no credentials server URL"
    package static let missingUsernameMessage = "no credentials username"

    /// The most bytes of one request (a server URL, or the JSON of `store`).
    package static let readLimit = 64 * 1024

    /// The text on `descriptor` (the helper's stdin) up to EOF, strictly UTF-8 and at most ``readLimit``
    /// bytes. The bytes read are zeroed before it returns.
    package static func readRequest(from descriptor: Int32) throws(CredentialHelperInputError) -> String {
        var reader = RequestReader(limit: readLimit)
        defer { reader.erase() }
        guard var bytes = reader.readAll(from: descriptor) else {
            throw CredentialHelperInputError("the request on stdin is longer than \(readLimit / 1024) KiB; nothing was read or stored")
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CredentialHelperInputError("the request on stdin is not valid UTF-8 text; nothing was read or stored")
        }
        return text
    }

    /// The server URL of `get`/`erase`: stdin without surrounding white space, as the reference helpers
    /// read it.
    package static func serverURL(in text: String) throws(CredentialHelperInputError) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { throw CredentialHelperInputError(missingServerURLMessage) }
        return String(scalars[first...last])
    }
}

/// One docker credential as `store` receives it and `get` answers it; also the stored JSON object, so
/// `biometrics-vault show docker:... --field Secret` reads it.
package struct DockerCredentialItem: Sendable, Equatable {
    package var serverURL: String
    package var username: String
    package var secret: String

    /// The object of `store`: `ServerURL`, `Username` and `Secret` strings (a missing `Secret` is empty,
    /// as the reference helpers take it); other members are ignored.
    package init(request json: JSONValue) throws(CredentialHelperInputError) {
        guard case .object = json else { throw CredentialHelperInputError("the credentials on stdin are not a JSON object") }
        func string(_ name: String) throws(CredentialHelperInputError) -> String? {
            switch json.member(named: name) {
            case nil, .null?: return nil
            case .string(let value)?: return value.value
            case .bool?, .number?, .array?, .object?: throw CredentialHelperInputError("'\(name)' is not a JSON string")
            }
        }
        guard let serverURL = try string("ServerURL"), !serverURL.isEmpty else {
            throw CredentialHelperInputError(DockerCredentialProtocol.missingServerURLMessage)
        }
        guard let username = try string("Username"), !username.isEmpty else {
            throw CredentialHelperInputError(DockerCredentialProtocol.missingUsernameMessage)
        }
        self.init(serverURL: serverURL, username: username, secret: try string("Secret") ?? "")
    }

    package init(serverURL: String, username: String, secret: String) {
        self.serverURL = serverURL
        self.username = username
        self.secret = secret
    }

    /// A stored value that is this helper's object, each member read as `show --field` and `exec --env`
    /// read a field (a number as its literal); `nil` for anything else (a foreign item).
    package init?(stored json: JSONValue) {
        guard let serverURL = json.member(named: "ServerURL")?.scalarText,
            let username = json.member(named: "Username")?.scalarText, let secret = json.member(named: "Secret")?.scalarText
        else { return nil }
        self.init(serverURL: serverURL, username: username, secret: secret)
    }

    package var json: JSONValue {
        .object(["ServerURL": .string(serverURL), "Username": .string(username), "Secret": .string(secret)])
    }
}

/// The vault keys of docker credentials: `docker:` and the server URL exactly as the client names it,
/// encoded by ``CredentialHelperKey`` (e.g. `docker:https%3A%2F%2Findex.docker.io%2Fv1%2F`,
/// `docker:127.0.0.1%3A5000`).
package enum DockerCredentialKey {
    package static let prefix = "docker:"

    package static func key(serverURL: String) -> String {
        CredentialHelperKey.key(prefix: prefix, parts: [("", serverURL)])
    }

    /// Whether `key` is one of this helper's keys (it starts with ``prefix``).
    package static func isKey(_ key: String) -> Bool {
        CredentialHelperKey.rest(of: key, after: prefix) != nil
    }

    /// The server URL that one of this helper's keys spells; `nil` for another key, or a URL in digest form.
    package static func serverURL(inKey key: String) -> String? {
        CredentialHelperKey.rest(of: key, after: prefix).flatMap(CredentialHelperKey.decode)
    }
}
