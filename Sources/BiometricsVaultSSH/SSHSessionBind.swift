/// OpenSSH's `session-bind@openssh.com` agent extension (PROTOCOL.agent): the client tells the agent which
/// server it is connected to, and proves it with the server's signature of the session identifier. The
/// agent uses it to show the destination in its prompt and to apply destination constraints.
///
/// Its contents: string host key blob, string session identifier, string signature (by the host key,
/// over the session identifier), bool is_forwarding.
package struct SSHSessionBind: Sendable, Equatable {
    package let hostKey: SSHPublicKey
    package let sessionID: [UInt8]
    /// Whether the connection forwards this agent to the server (the prompt then names the hop).
    package let isForwarding: Bool

    /// The longest session identifier accepted (OpenSSH's AGENT_MAX_SID_LEN): the hash of a key exchange
    /// is at most 64 bytes.
    package static let maximumSessionIDSize = 128

    /// Parses the extension's contents and verifies the signature: it must be the host key's signature
    /// of the session identifier. A malformed field, an unsupported host key, an empty or over-long
    /// session identifier, or trailing bytes are refused too.
    package init(contents: [UInt8]) throws(SSHError) {
        var reader = SSHReader(contents)
        let hostKey = try SSHPublicKey(blob: try reader.readString())
        let sessionID = try reader.readString()
        let signature = try reader.readString()
        let isForwarding = try reader.readBool()
        try reader.expectEnd("the session-bind extension")
        guard !sessionID.isEmpty, sessionID.count <= Self.maximumSessionIDSize else {
            throw SSHError("a session identifier of \(sessionID.count) bytes (1 to \(Self.maximumSessionIDSize) accepted)")
        }
        guard hostKey.verify(signature: signature, of: sessionID) else {
            throw SSHError("the host key's signature of the session does not verify")
        }
        self.hostKey = hostKey
        self.sessionID = sessionID
        self.isForwarding = isForwarding
    }

    /// The extension's contents as a client sends them (the counterpart of ``init(contents:)``).
    package static func contents(hostKey: SSHPublicKey, sessionID: [UInt8], signature: [UInt8], isForwarding: Bool) -> [UInt8] {
        var writer = SSHWriter()
        writer.write(string: hostKey.blob)
        writer.write(string: sessionID)
        writer.write(string: signature)
        writer.write(bool: isForwarding)
        return writer.bytes
    }
}
