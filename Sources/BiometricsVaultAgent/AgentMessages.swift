import BiometricsVaultCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request to the unlock-window agent. The agent reads the asking process's scope (controlling
/// terminal and session) itself, from the kernel's peer credentials and `/proc`: a client never names a
/// scope, so it cannot ask about another terminal's windows.
package enum AgentRequest: Codable, Equatable, Sendable {
    /// Opens (or renews) this scope's window for `service` and `policy`, for `seconds`, after the client
    /// authenticated; `enrollment` is the enrolled set that matched, if any. The agent, running as the
    /// same user, cannot check that authentication: a process on the terminal that sends this opens a
    /// window there (SECURITY.md, "a window not earned by an authentication").
    case open(service: String, policy: String, seconds: Int, enrollment: String?)
    /// Whether this scope has an open window for `service` and `policy`.
    case query(service: String, policy: String)
    /// Closes every window of every scope.
    case lock
    /// Closes this scope's window for `service` and `policy`, if one is open (a client that saw the
    /// enrolled set differ from the window's). Answered with `locked(count:)`.
    case close(service: String, policy: String)
    /// This scope and its open windows.
    case status
    /// Keeps, for this scope and `seconds`, the key of the file store rooted at `store` whose key file has
    /// SHA-256 `keyFile` (``StoreKeyKeeper``). The key's ``AgentFrame/storeKeyLength`` bytes follow the
    /// frame raw, never inside the JSON, so each side reads or writes them from memory it zeroes.
    case keepStoreKey(store: String, keyFile: String, seconds: Int)
    /// The key this scope keeps for `store`, if its key file is still `keyFile` (one kept for another
    /// key file is dropped).
    case storeKey(store: String, keyFile: String)
    /// Drops the keys kept for `store` in every scope (one no longer opened it); answered `locked`.
    case forgetStoreKey(store: String)
}

extension AgentRequest {
    /// Whether a store key's raw bytes follow this request's frame.
    package var carriesStoreKey: Bool {
        if case .keepStoreKey = self { return true }
        return false
    }
}

/// One open window, as the agent reports it.
package struct UnlockWindowReport: Codable, Equatable, Sendable {
    package var service: String
    package var policy: String
    /// Whole seconds left (rounded up).
    package var remainingSeconds: Int
    package var enrollment: String?

    package init(service: String, policy: String, remainingSeconds: Int, enrollment: String?) {
        self.service = service
        self.policy = policy
        self.remainingSeconds = remainingSeconds
        self.enrollment = enrollment
    }
}

/// The agent's answer to one ``AgentRequest``.
package enum AgentResponse: Codable, Equatable, Sendable {
    /// `open`: the window now open.
    case opened(UnlockWindowReport)
    /// `query`: the open window, or `nil`.
    case window(UnlockWindowReport?)
    /// `lock`, `close`: how many windows were closed.
    case locked(count: Int)
    /// `status`: the asking process's scope (`nil`: it has no terminal) and its open windows.
    case status(scope: String?, windows: [UnlockWindowReport])
    /// The request was refused (no terminal, a malformed request, a duration out of range).
    case refused(reason: String)
    /// `keepStoreKey`: the key is kept for that many seconds.
    case keptStoreKey(seconds: Int)
    /// `storeKey`: whether this scope keeps one; when it does, the key's ``AgentFrame/storeKeyLength``
    /// raw bytes follow the frame.
    case storeKey(found: Bool)
}

extension AgentResponse {
    /// Whether a store key's raw bytes follow this answer's frame.
    package var carriesStoreKey: Bool {
        if case .storeKey(found: true) = self { return true }
        return false
    }
}

/// The frame both sides write: a 4-byte big-endian length, then that many bytes of JSON, an object that
/// names the wire format's ``version`` beside the message: `{"version":1,"message":...}`. A side reads a
/// frame of another version (an agent left running by another build of `biometrics-vault`) as
/// ``AgentFrameError/versionMismatch(received:expected:)``, never as a message.
package enum AgentFrame {
    /// The wire format's version. Raised whenever a message's encoding changes in a way the other side
    /// would misread; both sides refuse every other version.
    package static let version = 1
    /// The largest frame body either side accepts; a longer one is refused before it is read.
    package static let maximumBodySize = 4096
    /// The longest window the agent opens (a day).
    package static let maximumWindowSeconds = 86_400
    /// The length of a file store key, sent raw after the frame of a message that carries one.
    package static let storeKeyLength = 32

    private struct Envelope<Message: Codable>: Codable {
        var version: Int
        var message: Message
    }

    /// What is read first: the version alone, so that a message of another version is never decoded.
    private struct VersionOnly: Decodable {
        var version: Int?
    }

    package static func encode(_ value: some Codable) throws(VaultError) -> [UInt8] {
        let body: [UInt8]
        do { body = Array(try JSONEncoder().encode(Envelope(version: version, message: value))) } catch {
            throw VaultError(.encodingFailed, underlying: .message("\(error)"))
        }
        guard body.count <= maximumBodySize else {
            throw VaultError(.credentialsTooLarge, underlying: .message("agent message of \(body.count) bytes exceeds \(maximumBodySize)"))
        }
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)] + body
    }

    /// The body length a 4-byte header announces.
    package static func length(of header: some Collection<UInt8>) -> Int {
        header.reduce(0) { $0 << 8 | Int($1) }
    }

    /// The message in a frame's body.
    ///
    /// - Throws: ``AgentFrameError/versionMismatch(received:expected:)`` for a body of another version (or
    ///   none); ``AgentFrameError/malformed(_:)`` for one that is not this version's message.
    package static func decode<Value: Codable>(_ type: Value.Type, body: some Collection<UInt8>) throws(AgentFrameError) -> Value {
        let data = Data(body)
        let received: Int?
        do {
            received = try JSONDecoder().decode(VersionOnly.self, from: data).version
        } catch {
            throw .malformed("not a JSON object")
        }
        guard received == version else { throw .versionMismatch(received: received, expected: version) }
        do {
            return try JSONDecoder().decode(Envelope<Value>.self, from: data).message
        } catch {
            throw .malformed("not a \(Value.self) of wire version \(version)")
        }
    }
}

/// Why a frame's body is not a message (``AgentFrame/decode(_:body:)``). Its words never repeat the body.
package enum AgentFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The body names another wire version (`nil`: none, as frames had before they carried one).
    case versionMismatch(received: Int?, expected: Int)
    /// The body is not a message of this version.
    case malformed(String)

    package var description: String {
        switch self {
        case .versionMismatch(let received?, let expected):
            "wire version \(received), where this side speaks \(expected) (another build of biometrics-vault)"
        case .versionMismatch(nil, let expected):
            "no wire version, where this side speaks \(expected) (a build of biometrics-vault from before versioned frames)"
        case .malformed(let reason): "malformed frame: \(reason)"
        }
    }
}

/// `--unlock-window DURATION` / `BIOMETRICS_VAULT_UNLOCK_WINDOW`: `90`, `90s`, `15m`, `1h`; `0` or `off`
/// turns windows off.
package enum UnlockWindowDuration {
    /// The window's length in seconds; `nil` when `text` turns windows off.
    package static func seconds(_ text: String) -> Result<Int?, UnlockWindowDurationError> {
        let trimmed = text.lowercased()
        if trimmed == "off" || trimmed == "0" { return .success(nil) }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        var digits = Substring(trimmed)
        var unit = 1
        if let last = trimmed.last, let multiplier = units[last] {
            digits = digits.dropLast()
            unit = multiplier
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let count = Int(digits), count <= AgentFrame.maximumWindowSeconds
        else { return .failure(UnlockWindowDurationError(text: text)) }
        let seconds = count * unit
        guard seconds <= AgentFrame.maximumWindowSeconds else { return .failure(UnlockWindowDurationError(text: text)) }
        return .success(seconds == 0 ? nil : seconds)
    }
}

package struct UnlockWindowDurationError: Error, Equatable, CustomStringConvertible {
    package let text: String
    package var description: String {
        "invalid unlock window '\(text)': a number of seconds, or with s, m or h (e.g. 90, 15m, 1h), at most 24h; 0 or off turns it off"
    }
}
