/// One key the agent offers: its public blob and its comment.
package struct SSHIdentity: Sendable, Equatable {
    package let blob: [UInt8]
    package let comment: String

    package init(blob: [UInt8], comment: String) {
        self.blob = blob
        self.comment = comment
    }
}

/// The agent's answer to one ``SSHAgentRequest`` (the number after each case is its message type).
package enum SSHAgentResponse: Sendable, Equatable {
    /// SSH_AGENT_FAILURE, 5. Decoding also reads OpenSSH's SSH2_AGENT_FAILURE (30) and ssh.com's
    /// SSH_COM_AGENT2_FAILURE (102) as this, as OpenSSH's client does.
    case failure
    /// SSH_AGENT_SUCCESS, 6.
    case success
    /// SSH_AGENT_IDENTITIES_ANSWER, 12.
    case identities([SSHIdentity])
    /// SSH_AGENT_SIGN_RESPONSE, 14: the signature blob (string algorithm, string signature).
    case signature([UInt8])
    /// SSH_AGENT_EXTENSION_FAILURE, 28: the extension is not supported.
    case extensionFailure

    /// The message's body: its type, then its fields.
    package var body: [UInt8] {
        var writer = SSHWriter()
        switch self {
        case .failure:
            writer.write(byte: 5)
        case .success:
            writer.write(byte: 6)
        case .identities(let identities):
            writer.write(byte: 12)
            writer.write(uint32: UInt32(identities.count))
            for identity in identities {
                writer.write(string: identity.blob)
                writer.write(utf8: identity.comment)
            }
        case .signature(let signature):
            writer.write(byte: 14)
            writer.write(string: signature)
        case .extensionFailure:
            writer.write(byte: 28)
        }
        return writer.bytes
    }

    /// The whole frame: the body's length as 4 big-endian bytes, then the body. An `identities` answer
    /// can outgrow ``SSHAgentFrame/maximumBodySize``, which OpenSSH's client refuses to read: an agent
    /// keeps its list of keys well under that.
    package var frame: [UInt8] { SSHAgentFrame.frame(body) }

    /// Decodes a body (the client's side: tests, the fuzz target): an unknown type, a truncated or
    /// malformed field, or bytes after the message are refused.
    package init(body: [UInt8]) throws(SSHError) {
        guard let type = body.first else { throw SSHError("an empty message") }
        var reader = SSHReader(Array(body.dropFirst()))
        switch type {
        case 5, 30, 102:
            self = .failure
        case 6:
            self = .success
        case 12:
            let count = try reader.readUInt32()
            var identities: [SSHIdentity] = []
            // No capacity from the count: each identity is read (8 bytes at least) before the next.
            for _ in 0..<count {
                let blob = try reader.readString()
                identities.append(SSHIdentity(blob: blob, comment: try reader.readUTF8()))
            }
            self = .identities(identities)
        case 14:
            self = .signature(try reader.readString())
        case 28:
            self = .extensionFailure
        default:
            throw SSHError("unknown message type \(type)")
        }
        try reader.expectEnd("the answer (type \(type))")
    }
}

/// The agent protocol's framing: a 4-byte big-endian length, then that many bytes of message body.
package enum SSHAgentFrame {
    /// The largest body read: 256 KiB, OpenSSH's AGENT_MAX_LEN.
    package static let maximumBodySize = 256 * 1024
    /// The length field's size.
    package static let headerSize = 4

    /// The length of the body that follows `header` (the 4 bytes read first). An empty body, or one over
    /// ``maximumBodySize``, is refused before it is read.
    package static func bodyLength(header: [UInt8]) throws(SSHError) -> Int {
        guard header.count == headerSize else { throw SSHError("a frame's length is \(headerSize) bytes, not \(header.count)") }
        let length = header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard length > 0 else { throw SSHError("an empty message") }
        guard length <= UInt32(maximumBodySize) else {
            throw SSHError("a message of \(length) bytes is over the limit of \(maximumBodySize)")
        }
        return Int(length)
    }

    /// `body` framed: its length as 4 big-endian bytes, then the body.
    package static func frame(_ body: [UInt8]) -> [UInt8] {
        var writer = SSHWriter()
        writer.write(string: body)
        return writer.bytes
    }
}
