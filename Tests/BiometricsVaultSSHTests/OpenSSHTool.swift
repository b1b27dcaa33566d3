import BiometricsVaultSSH
import BiometricsVaultTestSupport
import Foundation
import Testing

/// OpenSSH's `ssh-keygen`, the reference the keys and signatures are checked against.
enum OpenSSH {
    static let keygen = "/usr/bin/ssh-keygen"
    static let need = DaemonNeed.executables([keygen], remedy: "scripts/setup/55-openssh.sh")

    /// `ssh-keygen -t` arguments for a key of `type`, as a person would ask for it.
    static func typeArguments(_ type: SSHKeyType) -> [String] {
        switch type {
        case .ed25519: ["-t", "ed25519"]
        case .ecdsaP256: ["-t", "ecdsa", "-b", "256"]
        case .ecdsaP384: ["-t", "ecdsa", "-b", "384"]
        case .rsa: ["-t", "rsa", "-b", "3072"]
        }
    }

    /// Runs ssh-keygen; throws with its stderr unless it exits 0.
    @discardableResult
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> String {
        let output = try await Shell.run(keygen, arguments, stdin: stdin)
        guard output.status == 0 else {
            throw TestFailure("ssh-keygen \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
        }
        return output.stdout
    }

    /// A new unencrypted key made by ssh-keygen in `directory`: the private key file's path.
    static func generate(_ arguments: [String], in directory: URL, comment: String = "test@bv") async throws -> String {
        let path = directory.appendingPathComponent("id").path
        try await run(arguments + ["-N", "", "-q", "-C", comment, "-f", path])
        return path
    }

    /// The fingerprint `ssh-keygen -l` prints for a public key file.
    static func fingerprint(ofPublicKeyFile path: String) async throws -> String {
        let line = try await run(["-l", "-f", path])
        let fields = line.split(separator: " ")
        guard fields.count >= 2 else { throw TestFailure("ssh-keygen -l printed \(line)") }
        return String(fields[1])
    }
}

/// An unencrypted `openssh-key-v1` private key file (OpenSSH's PROTOCOL.key), read here only to get
/// the fields `ssh-add` would send the agent: the file's private section holds the same serialization.
struct OpenSSHKeyFile {
    /// The public key blob of the file's header.
    var publicBlob: [UInt8]
    /// The key type and its private fields, exactly as SSH_AGENTC_ADD_IDENTITY carries them.
    var agentFields: [UInt8]
    var comment: String

    init(contents: String) throws {
        let base64 = contents.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let decoded = Data(base64Encoded: base64) else { throw TestFailure("not base64") }
        let magic = Array("openssh-key-v1".utf8) + [0]
        let bytes = Array(decoded)
        guard bytes.starts(with: magic) else { throw TestFailure("not openssh-key-v1") }
        var reader = SSHReader(Array(bytes.dropFirst(magic.count)))
        guard try reader.readUTF8() == "none", try reader.readUTF8() == "none" else { throw TestFailure("an encrypted key file") }
        _ = try reader.readString()
        guard try reader.readUInt32() == 1 else { throw TestFailure("not one key") }
        publicBlob = try reader.readString()
        var section = SSHReader(try reader.readString())
        try reader.expectEnd("the key file")
        guard try section.readUInt32() == section.readUInt32() else { throw TestFailure("check bytes differ") }
        // The key's fields end where SSHPrivateKey stops reading; the comment and padding follow.
        let fields = section.remaining
        var delimiter = section
        _ = try SSHPrivateKey(agentFields: &delimiter)
        agentFields = Array(fields.prefix(fields.count - delimiter.remainingCount))
        comment = try delimiter.readUTF8()
        let padding = delimiter.readRemaining()
        guard padding == (0..<padding.count).map({ UInt8($0 + 1) }) else {
            throw TestFailure("unexpected padding \(padding)")
        }
    }

    init(path: String) throws {
        try self.init(contents: String(contentsOfFile: path, encoding: .utf8))
    }
}
