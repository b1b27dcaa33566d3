/// What a sign request's data is, read from the data itself, so that the prompt can say what a signature
/// is for (a login to a server as a user, a git commit, …).
///
/// This is what the data claims, not a proof: a client can send any bytes. Only a user authentication
/// whose session the client bound with ``SSHSessionBind`` (same session identifier, verified host key)
/// names its server truthfully.
package enum SSHSignedData: Sendable, Equatable {
    /// An SSH user authentication request (RFC 4252 §7): string session identifier, byte 50
    /// (SSH_MSG_USERAUTH_REQUEST), string user, string service ("ssh-connection"), string "publickey",
    /// bool TRUE, string algorithm, string key blob; for OpenSSH's `publickey-hostbound-v00@openssh.com`
    /// method, then the server's host key blob (`hostKey`).
    case userAuthentication(sessionID: [UInt8], user: String, keyBlob: [UInt8], hostKey: SSHPublicKey?)
    /// An SSHSIG signature (OpenSSH PROTOCOL.sshsig: `ssh-keygen -Y sign`, git's SSH signing): byte[6]
    /// "SSHSIG", string namespace, string reserved, string hash algorithm, string H(message).
    case sshsig(namespace: String, hashAlgorithm: String)
    /// Anything else, or a malformed one of the above.
    case other

    /// SSH_MSG_USERAUTH_REQUEST.
    static let userAuthenticationRequest: UInt8 = 50
    static let publicKeyMethod = "publickey"
    static let hostBoundMethod = "publickey-hostbound-v00@openssh.com"

    /// Reads what `data` is; never throws: data that is none of the known forms is ``other``.
    package init(_ data: [UInt8]) {
        if let sshsig = try? Self.sshsig(data) {
            self = sshsig
        } else if let authentication = try? Self.userAuthentication(data) {
            self = authentication
        } else {
            self = .other
        }
    }

    private static func sshsig(_ data: [UInt8]) throws(SSHError) -> SSHSignedData {
        guard data.starts(with: SSHSIG.magic) else { throw SSHError("not SSHSIG") }
        var reader = SSHReader(Array(data.dropFirst(SSHSIG.magic.count)))
        let namespace = try reader.readUTF8()
        _ = try reader.readString()
        let hashAlgorithm = try reader.readUTF8()
        _ = try reader.readString()
        try reader.expectEnd("the SSHSIG data")
        return .sshsig(namespace: namespace, hashAlgorithm: hashAlgorithm)
    }

    /// The request as OpenSSH's agent checks it (`parse_userauth_request`): a non-empty session
    /// identifier, the service "ssh-connection", TRUE for "a signature follows", nothing after the key
    /// (or the host key).
    private static func userAuthentication(_ data: [UInt8]) throws(SSHError) -> SSHSignedData {
        var reader = SSHReader(data)
        let sessionID = try reader.readString()
        guard !sessionID.isEmpty, try reader.readByte() == userAuthenticationRequest else { throw SSHError("not a user authentication") }
        let user = try reader.readUTF8()
        guard try reader.readUTF8() == "ssh-connection" else { throw SSHError("not a user authentication") }
        let method = try reader.readUTF8()
        guard method == publicKeyMethod || method == hostBoundMethod, try reader.readByte() == 1 else {
            throw SSHError("not a public key authentication")
        }
        _ = try reader.readUTF8()
        let keyBlob = try reader.readString()
        let hostKey = method == hostBoundMethod ? try SSHPublicKey(blob: try reader.readString()) : nil
        try reader.expectEnd("the user authentication request")
        return .userAuthentication(sessionID: sessionID, user: user, keyBlob: keyBlob, hostKey: hostKey)
    }
}
