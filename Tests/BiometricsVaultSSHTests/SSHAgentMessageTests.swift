import BiometricsVaultCore
import BiometricsVaultSSH
import Testing

@Suite struct SSHAgentRequestTests {
    static func body(_ type: UInt8, _ fields: (inout SSHWriter) -> Void = { _ in }) -> [UInt8] {
        [type] + wire(fields)
    }

    @Test func simpleRequests() throws {
        #expect(try SSHAgentRequest(body: [11]) == .requestIdentities)
        #expect(try SSHAgentRequest(body: [19]) == .removeAllIdentities)
        let blob = try TestKeys.key(.ed25519).publicKey.blob
        #expect(try SSHAgentRequest(body: Self.body(18) { $0.write(string: blob) }) == .removeIdentity(keyBlob: blob))
        let sign = Self.body(13) {
            $0.write(string: blob)
            $0.write(string: [1, 2, 3])
            $0.write(uint32: 4)
        }
        #expect(try SSHAgentRequest(body: sign) == .sign(keyBlob: blob, data: [1, 2, 3], flags: 4))
        #expect(try SSHAgentRequest(body: Self.body(22) { $0.write(utf8: "pass") }) == .lock(passphrase: SecretBytes(utf8: "pass")))
        #expect(try SSHAgentRequest(body: Self.body(23) { $0.write(utf8: "pass") }) == .unlock(passphrase: SecretBytes(utf8: "pass")))
    }

    @Test func smartcardRequestsAreRecognisedWithoutReadingThem() throws {
        let fields = wire {
            $0.write(utf8: "/usr/lib/opensc-pkcs11.so")
            $0.write(utf8: "123456")
        }
        #expect(try SSHAgentRequest(body: [20] + fields) == .addSmartcardKey)
        #expect(try SSHAgentRequest(body: [26] + fields + [2]) == .addSmartcardKey)
        #expect(try SSHAgentRequest(body: [21] + fields) == .removeSmartcardKey)
    }

    @Test func extensionRequests() throws {
        let contents: [UInt8] = [0, 0, 0, 1, 0x41, 9]
        let body = Self.body(27) { $0.write(utf8: "session-bind@openssh.com") } + contents
        #expect(try SSHAgentRequest(body: body) == .extension(name: "session-bind@openssh.com", contents: contents))
        #expect(try SSHAgentRequest(body: Self.body(27) { $0.write(utf8: "query") }) == .extension(name: "query", contents: []))
    }

    @Test(arguments: SSHKeyType.allCases)
    func addIdentity(type: SSHKeyType) throws {
        let key = try TestKeys.key(type)
        let fields = key.agentFields.copyBytes()
        let plain = [17] + fields + wire { $0.write(utf8: "laptop key") }
        #expect(try SSHAgentRequest(body: plain) == .addIdentity(key: key, comment: "laptop key", constraints: []))

        let constraints: [SSHAgentConstraint] = [
            .lifetime(seconds: 3600), .confirm, .maxSignatures(10),
            .extension(name: "restrict-destination-v00@openssh.com", contents: wire { $0.write(string: [1, 2, 3]) }),
            .extension(name: "associated-certs-v00@openssh.com", contents: [1] + wire { $0.write(string: []) }),
            .extension(name: "sk-provider@openssh.com", contents: wire { $0.write(utf8: "internal") }),
        ]
        let constrained = [25] + fields + wire {
            $0.write(utf8: "c")
            $0.write(byte: 1)
            $0.write(uint32: 3600)
            $0.write(byte: 2)
            $0.write(byte: 3)
            $0.write(uint32: 10)
            $0.write(byte: 255)
            $0.write(utf8: "restrict-destination-v00@openssh.com")
            $0.write(string: [1, 2, 3])
            $0.write(byte: 255)
            $0.write(utf8: "associated-certs-v00@openssh.com")
            $0.write(byte: 1)
            $0.write(string: [])
            $0.write(byte: 255)
            $0.write(utf8: "sk-provider@openssh.com")
            $0.write(utf8: "internal")
        }
        let request = try SSHAgentRequest(body: constrained)
        #expect(request == .addIdentity(key: key, comment: "c", constraints: constraints))
        #expect(request.body == constrained)
        #expect(request.messageType == 25)
        // A constrained add with no constraints is a plain add.
        #expect(try SSHAgentRequest(body: [25] + Array(plain.dropFirst())).body == plain)
    }

    /// Every request's body decodes to the same request.
    @Test func bodiesRoundTrip() throws {
        let key = try TestKeys.key(.ecdsaP384)
        let requests: [SSHAgentRequest] = [
            .requestIdentities, .sign(keyBlob: key.publicKey.blob, data: [9, 9], flags: 2),
            .addIdentity(key: key, comment: "k", constraints: [.confirm]), .removeIdentity(keyBlob: [1]),
            .removeAllIdentities, .addSmartcardKey, .removeSmartcardKey, .lock(passphrase: SecretBytes(utf8: "p")),
            .unlock(passphrase: SecretBytes(utf8: "q")), .extension(name: "e@example.com", contents: [0xFF]),
        ]
        for request in requests {
            #expect(try SSHAgentRequest(body: request.body) == request)
            #expect(request.body.first == request.messageType)
        }
    }

    @Test(arguments: [
        ([UInt8](), "an empty message"),
        ([1], "unknown message type 1"),
        ([9], "unknown message type 9"),
        ([24], "unknown message type 24"),
        ([40], "unknown message type 40"),
        ([255], "unknown message type 255"),
        ([11, 0], "1 bytes follow the end of the message (type 11)"),
        ([19, 1, 2], "2 bytes follow the end of the message (type 19)"),
    ])
    func refusals(body: [UInt8], message: String) {
        #expect(throws: SSHError(message)) { try SSHAgentRequest(body: body) }
    }

    @Test func truncatedRequestsAreRefusedAtEveryCut() throws {
        let key = try TestKeys.key(.ed25519)
        let bodies = [
            SSHAgentRequest.sign(keyBlob: key.publicKey.blob, data: [1, 2, 3], flags: 0).body,
            SSHAgentRequest.addIdentity(key: key, comment: "comment", constraints: []).body,
            SSHAgentRequest.removeIdentity(keyBlob: key.publicKey.blob).body,
            SSHAgentRequest.lock(passphrase: SecretBytes(utf8: "pass")).body,
        ]
        for body in bodies {
            for cut in 1..<body.count {
                #expect(throws: SSHError.self) { try SSHAgentRequest(body: Array(body.prefix(cut))) }
            }
        }
    }

    @Test func signRequestWithTrailingBytes() throws {
        let body = SSHAgentRequest.sign(keyBlob: [1], data: [2], flags: 0).body + [0]
        #expect(throws: SSHError("1 bytes follow the end of the message (type 13)")) { try SSHAgentRequest(body: body) }
    }

    static func addBody(_ fields: (inout SSHWriter) -> Void) -> [UInt8] {
        [17] + wire {
            fields(&$0)
            $0.write(utf8: "comment")
        }
    }

    @Test func dsaAndOtherTypesAreRefused() {
        let dsa = Self.addBody {
            $0.write(utf8: "ssh-dss")
            for _ in 0..<5 { $0.write(mpint: [0x7F, 1, 2, 3]) }
        }
        #expect(throws: SSHError("DSA keys are not supported")) { try SSHAgentRequest(body: dsa) }
        let sk = Self.addBody { $0.write(utf8: "sk-ssh-ed25519@openssh.com") }
        #expect(throws: SSHError.self) { try SSHAgentRequest(body: sk) }
        let certificate = Self.addBody { $0.write(utf8: "ssh-ed25519-cert-v01@openssh.com") }
        let error = #expect(throws: SSHError.self) { try SSHAgentRequest(body: certificate) }
        #expect(error?.message.hasPrefix("certificates are not supported") == true)
    }

    @Test func rsa1024IsRefused() {
        let n = [UInt8(0xC5)] + [UInt8](repeating: 0x3A, count: 126) + [0x01]
        let body = Self.addBody {
            $0.write(utf8: "ssh-rsa")
            for value in [n, [1, 0, 1], n, [1], n, n] { $0.write(mpint: value) }
        }
        #expect(throws: SSHError("RSA keys of under 2048 bits are not accepted (this one has 1024)")) { try SSHAgentRequest(body: body) }
    }

    @Test func rsaWhosePrivatePartDoesNotMatchIsRefused() throws {
        var reader = SSHReader(try TestKeys.key(.rsa).agentFields.copyBytes())
        _ = try reader.readString()
        var numbers = try (0..<6).map { _ in try reader.readMPInt() }  // n, e, d, iqmp, p, q
        numbers[2][numbers[2].count - 1] ^= 0x02  // d
        let body = Self.addBody {
            $0.write(utf8: "ssh-rsa")
            for value in numbers { $0.write(mpint: value) }
        }
        #expect(throws: SSHError.self) { try SSHAgentRequest(body: body) }
        numbers[2][numbers[2].count - 1] ^= 0x02
        numbers[3][numbers[3].count - 1] ^= 0x01  // iqmp
        let wrongIQMP = Self.addBody {
            $0.write(utf8: "ssh-rsa")
            for value in numbers { $0.write(mpint: value) }
        }
        #expect(throws: SSHError("the RSA private key's iqmp is not the inverse of q modulo p")) { try SSHAgentRequest(body: wrongIQMP) }
    }

    @Test func ed25519SeedThatDoesNotDeriveThePublicKeyIsRefused() throws {
        let key = try TestKeys.key(.ed25519)
        let other = try SSHPrivateKey.generate(.ed25519)
        var reader = SSHReader(other.agentFields.copyBytes())
        _ = try reader.readString()
        _ = try reader.readString()
        let otherPrivate = try reader.readString()
        let publicBytes = Array(key.publicKey.blob.suffix(32))
        // The other key's seed with this key's public key in both places.
        let mismatched = Self.addBody {
            $0.write(utf8: "ssh-ed25519")
            $0.write(string: publicBytes)
            $0.write(string: Array(otherPrivate.prefix(32)) + publicBytes)
        }
        #expect(throws: SSHError("the Ed25519 seed does not derive the public key sent with it")) { try SSHAgentRequest(body: mismatched) }
        // The private field's public half differs from the public field.
        let halves = Self.addBody {
            $0.write(utf8: "ssh-ed25519")
            $0.write(string: publicBytes)
            $0.write(string: otherPrivate)
        }
        #expect(throws: SSHError("the Ed25519 private key's public half differs from its public key")) { try SSHAgentRequest(body: halves) }
    }

    @Test(arguments: [SSHKeyType.ecdsaP256, .ecdsaP384])
    func ecdsaMismatchesAreRefused(type: SSHKeyType) throws {
        let key = try TestKeys.key(type)
        var reader = SSHReader(key.agentFields.copyBytes())
        let name = try reader.readUTF8(), curve = try reader.readUTF8()
        let point = try reader.readString()
        let scalar = try reader.readMPInt()
        func body(point: [UInt8], scalar: [UInt8]) -> [UInt8] {
            Self.addBody {
                $0.write(utf8: name)
                $0.write(utf8: curve)
                $0.write(string: point)
                $0.write(mpint: scalar)
            }
        }
        #expect(try SSHAgentRequest(body: body(point: point, scalar: scalar)) == .addIdentity(key: key, comment: "comment", constraints: []))
        // A point off the curve.
        var offCurve = point
        offCurve[offCurve.count - 1] ^= 0x01
        let error = #expect(throws: SSHError.self) { try SSHAgentRequest(body: body(point: offCurve, scalar: scalar)) }
        #expect(error?.message.contains("not on its curve") == true)
        // Another key's point, on the curve.
        let otherPoint = Array(try SSHPrivateKey.generate(type).publicKey.blob.suffix(point.count))
        #expect(throws: SSHError("the \(type.rawValue) private scalar does not derive the public point sent with it")) {
            try SSHAgentRequest(body: body(point: otherPoint, scalar: scalar))
        }
        // A zero scalar.
        #expect(throws: SSHError.self) { try SSHAgentRequest(body: body(point: point, scalar: [])) }
    }

    @Test func constraintRefusals() throws {
        let fields = try TestKeys.key(.ed25519).agentFields.copyBytes()
        func constrained(_ constraints: (inout SSHWriter) -> Void) -> [UInt8] {
            [25] + fields + wire {
                $0.write(utf8: "c")
                constraints(&$0)
            }
        }
        #expect(throws: SSHError("unknown constraint type 4")) { try SSHAgentRequest(body: constrained { $0.write(byte: 4) }) }
        #expect(throws: SSHError("unknown constraint extension \"x@example.com\"")) {
            try SSHAgentRequest(body: constrained {
                $0.write(byte: 255)
                $0.write(utf8: "x@example.com")
            })
        }
        #expect(throws: SSHError("the confirm constraint is given twice")) {
            try SSHAgentRequest(body: constrained {
                $0.write(byte: 2)
                $0.write(byte: 2)
            })
        }
        #expect(throws: SSHError.self) { try SSHAgentRequest(body: constrained { $0.write(byte: 1) }) }
        // Constraints on a plain add are trailing bytes.
        #expect(throws: SSHError.self) { try SSHAgentRequest(body: [17] + Array(constrained { $0.write(byte: 2) }.dropFirst())) }
    }

    @Test func descriptionsNameNoSecret() throws {
        let key = try TestKeys.key(.ed25519)
        #expect("\(SSHAgentRequest.sign(keyBlob: key.publicKey.blob, data: [1, 2], flags: 0))" == "sign 2 bytes with \(key.publicKey), flags 0")
        #expect("\(SSHAgentRequest.unlock(passphrase: SecretBytes(utf8: "hunter2")))" == "unlock (passphrase redacted)")
    }
}

@Suite struct SSHAgentResponseTests {
    @Test(arguments: [
        (SSHAgentResponse.failure, [UInt8]([0, 0, 0, 1, 5])),
        (.success, [0, 0, 0, 1, 6]),
        (.extensionFailure, [0, 0, 0, 1, 28]),
        (.identities([]), [0, 0, 0, 5, 12, 0, 0, 0, 0]),
        (.identities([SSHIdentity(blob: [0xAA], comment: "c")]), [0, 0, 0, 15, 12, 0, 0, 0, 1, 0, 0, 0, 1, 0xAA, 0, 0, 0, 1, 0x63]),
        (.signature([1, 2]), [0, 0, 0, 7, 14, 0, 0, 0, 2, 1, 2]),
    ])
    func frames(response: SSHAgentResponse, frame: [UInt8]) throws {
        #expect(response.frame == frame)
        #expect(try SSHAgentFrame.bodyLength(header: Array(frame.prefix(4))) == frame.count - 4)
        #expect(try SSHAgentResponse(body: Array(frame.dropFirst(4))) == response)
    }

    @Test func otherFailuresReadAsFailure() throws {
        #expect(try SSHAgentResponse(body: [30]) == .failure)
        #expect(try SSHAgentResponse(body: [102]) == .failure)
    }

    @Test(arguments: [
        [UInt8](), [2], [13], [6, 0], [14], [14, 0, 0, 0, 5, 1], [12, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0],
        [12, 0xFF, 0xFF, 0xFF, 0xFF], [12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF],
    ])
    func refusals(body: [UInt8]) {
        #expect(throws: SSHError.self) { try SSHAgentResponse(body: body) }
    }
}
