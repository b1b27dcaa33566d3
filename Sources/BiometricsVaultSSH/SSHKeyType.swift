/// The SSH key types the vault keeps and signs with, by their names on the wire.
///
/// Not supported, and refused wherever a key is read: DSA (`ssh-dss`, removed from OpenSSH), security-key
/// types (`sk-…@openssh.com`: the private half lives on the authenticator, not in a vault), and
/// certificates (`…-cert-v01@openssh.com`).
package enum SSHKeyType: String, CaseIterable, Sendable {
    case ed25519 = "ssh-ed25519"
    case ecdsaP256 = "ecdsa-sha2-nistp256"
    case ecdsaP384 = "ecdsa-sha2-nistp384"
    case rsa = "ssh-rsa"

    /// The type from the `--type` name a person types: "ed25519", "ecdsa" (P-256, as `ssh-keygen -t
    /// ecdsa`), "ecdsa-p384", "rsa".
    package init?(option: String) {
        guard let type = Self.allCases.first(where: { $0.option == option }) else { return nil }
        self = type
    }

    /// The `--type` name of this type (``init(option:)``).
    package var option: String {
        switch self {
        case .ed25519: "ed25519"
        case .ecdsaP256: "ecdsa"
        case .ecdsaP384: "ecdsa-p384"
        case .rsa: "rsa"
        }
    }

    /// The curve's name inside an ECDSA key ("nistp256"); `nil` for the other types.
    var curveName: String? {
        switch self {
        case .ecdsaP256: "nistp256"
        case .ecdsaP384: "nistp384"
        case .ed25519, .rsa: nil
        }
    }

    /// The type named `name` on the wire; an unsupported one is refused, saying why.
    init(wireName name: [UInt8]) throws(SSHError) {
        let text = String(decoding: name, as: UTF8.self)
        if let type = SSHKeyType(rawValue: text), text.utf8.elementsEqual(name) {
            self = type
        } else if text.hasSuffix("-cert-v01@openssh.com") {
            throw SSHError("certificates are not supported (key type \(SSHError.quoted(name)))")
        } else if text.hasPrefix("sk-") {
            throw SSHError("security-key (sk-) keys are not supported (key type \(SSHError.quoted(name)))")
        } else if text == "ssh-dss" {
            throw SSHError("DSA keys are not supported")
        } else {
            throw SSHError("unknown key type \(SSHError.quoted(name))")
        }
    }
}
