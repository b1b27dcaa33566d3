// libFuzzer target: what the Secret Service client takes from a provider's replies (the provider is
// another program: any process of the user can own `org.freedesktop.secrets`). GDBus checks a reply's
// type signature; everything else is read here: GetSecrets' entries (`SecretServiceReplies.encryptedSecret`)
// and the secret's decryption and unpadding (`SessionEncryption.decrypt`), an item's `Attributes`
// (`SecretServiceReplies.attributes`) and any value a `Properties.Get` puts in its `v` (the `DBusValue`
// readers `Created` and `Locked` go through), SearchItems' lists, and OpenSession's output with the
// Diffie-Hellman key it carries (`SecretServiceReplies.openedSession`, `SessionEncryption(peerPublicKey:)`).
// The harness builds each reply with GLib from a description read out of the fuzz bytes, so it knows
// what the reply holds.
//
// Invariants, for every input:
// - nothing traps, leaks or reads out of bounds (AddressSanitizer, LeakSanitizer);
// - every `DBusValue` reader gives what the description says, `nil` for a value of another type, and
//   sees through `v` exactly where it is documented to;
// - GetSecrets: the first entry for the item decides; one for another session is refused
//   (`storeUnavailable`); otherwise its IV and value come back byte for byte;
// - decryption agrees with an independent AES-128-CBC (swift-crypto) and PKCS#7 check: the same secret,
//   or a `storeUnavailable` refusal whose message is one of two fixed texts (never a byte of what was
//   decrypted); what it accepts re-encrypts and decrypts to itself;
// - Attributes: an `a{ss}` is read as its pairs with the last of a name counting, anything else as no
//   attributes;
// - OpenSession: the key is taken only from an `ay` in the `v` (else `storeUnavailable`); a server key is
//   accepted exactly when 3 <= key <= p-3 (the keys 1, 2, p-2, p-1 give a shared secret anyone on the bus
//   knows, for any odd private exponent below q), leading zero bytes change nothing, and both ends of an
//   exchange (mode 5) derive the same session key.
//
// The first input byte picks the mode (mod 6): 0 GetSecrets, 1 Properties.Get, 2 SearchItems,
// 3 OpenSession, 4 a secret to decrypt, 5 an exchange with a server exponent.
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultSecretService
import CGio
import Crypto
import Foundation
import FuzzSupport
import _CryptoExtras

enum Fixture {
    static let itemPath = "/org/freedesktop/secrets/collection/login/17"
    static let sessionPath = "/org/freedesktop/secrets/session/s3"
    /// SessionEncryptionTests' first vector's session key, so that its ciphertexts are seeds.
    static let sessionKey = hex("be2b77213b25b2c7b02d80266b4e8355")
    static let session = SessionEncryption(key: sessionKey)
    /// SessionEncryptionTests' client exponent (odd, 256 bits).
    static let clientPair = try! SessionEncryption.KeyPair(privateExponent: hex("987464fd1ba9da3dab12ab8db8072c14fdb0b5556ecf128770746ee0aca452df"))
    static let prime = hex(
        "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd"
            + "ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed"
            + "ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff")

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
    }
}

// MARK: values described, built with GLib, and read back

/// A D-Bus value as the harness means it; `build` makes the GVariant.
indirect enum Described {
    case string(String)
    case path(String)
    case bytes([UInt8])
    case pairs([(String, String)])
    case bool(Bool)
    case uint64(UInt64)
    case uint32(UInt32)
    case strings([String])
    case paths([String])
    case variant(Described)
    case vardict([(String, Described)])
    case tuple([Described])

    var typeString: String {
        switch self {
        case .string: "s"
        case .path: "o"
        case .bytes: "ay"
        case .pairs: "a{ss}"
        case .bool: "b"
        case .uint64: "t"
        case .uint32: "u"
        case .strings: "as"
        case .paths: "ao"
        case .variant: "v"
        case .vardict: "a{sv}"
        case .tuple(let members): "(" + members.map(\.typeString).joined() + ")"
        }
    }

    /// The value inside nested `v`s.
    var innermost: Described {
        if case .variant(let inner) = self { return inner.innermost }
        return self
    }

    static func read(_ input: inout FuzzInput, depth: Int = 0) -> Described {
        let choice = input.byte() % (depth < 3 ? 12 : 9)
        switch choice {
        case 0: return .string(input.text())
        case 1: return .path(input.objectPath())
        case 2: return .bytes(input.field())
        case 3: return .pairs((0..<Int(input.byte() % 8)).map { _ in (input.text(), input.text()) })
        case 4: return .bool(input.byte() & 1 == 1)
        case 5: return .uint64(input.integer(bytes: 8))
        case 6: return .uint32(UInt32(input.integer(bytes: 4)))
        case 7: return .strings((0..<Int(input.byte() % 8)).map { _ in input.text() })
        case 8: return .paths((0..<Int(input.byte() % 8)).map { _ in input.objectPath() })
        case 9: return .variant(read(&input, depth: depth + 1))
        case 10: return .vardict((0..<Int(input.byte() % 4)).map { _ in (input.text(), read(&input, depth: depth + 1)) })
        default: return .tuple((0..<Int(input.byte() % 4)).map { _ in read(&input, depth: depth + 1) })
        }
    }
}

/// A floating GVariant for `value` (the constructors take their children's floating references).
func build(_ value: Described) -> OpaquePointer {
    func array(_ elementType: String, _ elements: [OpaquePointer]) -> OpaquePointer {
        let type = g_variant_type_new(elementType)
        defer { g_variant_type_free(type) }
        var raws: [OpaquePointer?] = elements
        return raws.withUnsafeMutableBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
    }
    switch value {
    case .string(let text): return g_variant_new_string(text)
    case .path(let path): return g_variant_new_object_path(path)
    case .bytes(let bytes):
        let type = g_variant_type_new("y")
        defer { g_variant_type_free(type) }
        let padded = bytes.isEmpty ? [0] : bytes
        return padded.withUnsafeBytes { g_variant_new_fixed_array(type, $0.baseAddress, gsize(bytes.count), 1) }
    case .pairs(let pairs):
        return array("{ss}", pairs.map { g_variant_new_dict_entry(g_variant_new_string($0.0), g_variant_new_string($0.1)) })
    case .bool(let flag): return g_variant_new_boolean(flag ? 1 : 0)
    case .uint64(let number): return g_variant_new_uint64(guint64(number))
    case .uint32(let number): return g_variant_new_uint32(number)
    case .strings(let texts): return array("s", texts.map { g_variant_new_string($0) })
    case .paths(let paths): return array("o", paths.map { g_variant_new_object_path($0) })
    case .variant(let inner): return g_variant_new_variant(build(inner))
    case .vardict(let entries):
        return array("{sv}", entries.map { g_variant_new_dict_entry(g_variant_new_string($0.0), g_variant_new_variant(build($0.1))) })
    case .tuple(let members):
        var raws: [OpaquePointer?] = members.map(build)
        return raws.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }
}

/// The reply as the client holds one: a non-floating reference owned by a `DBusValue`.
func reply(_ value: Described) -> DBusValue {
    DBusValue(taking: g_variant_ref_sink(build(value)))
}

func sameStrings(_ left: [String]?, _ right: [String]?) -> Bool {
    switch (left, right) {
    case (nil, nil): true
    case (let left?, let right?): left.count == right.count && zip(left, right).allSatisfy { sameScalars($0, $1) }
    default: false
    }
}

/// Every reader of `DBusValue` against the description.
func checkReaders(_ value: DBusValue, _ described: Described, depth: Int = 0) {
    fuzzRequire(value.typeString == described.typeString, "type \(value.typeString), described \(described.typeString)")
    let innermost = described.innermost
    var expectedString: String?
    if case .string(let text) = innermost { expectedString = text }
    if case .path(let path) = innermost { expectedString = path }
    fuzzRequire(sameStrings(value.string.map { [$0] }, expectedString.map { [$0] }), "string reader")
    var expectedBool: Bool?
    if case .bool(let flag) = innermost { expectedBool = flag }
    fuzzRequire(value.bool == expectedBool, "bool reader")
    var expectedUInt64: UInt64?
    if case .uint64(let number) = innermost { expectedUInt64 = number }
    fuzzRequire(value.uint64 == expectedUInt64, "uint64 reader")
    var expectedUInt32: UInt32?
    if case .uint32(let number) = innermost { expectedUInt32 = number }
    fuzzRequire(value.uint32 == expectedUInt32, "uint32 reader")

    var expectedStrings: [String]?
    var expectedBytes: [UInt8]?
    var expectedPairs: [(String, String)]?
    // `strings` reads through variants (a `Status` property holding `as`), as the scalar readers do.
    switch innermost {
    case .strings(let texts), .paths(let texts): expectedStrings = texts
    case .tuple(let members) where members.count == 1:
        if case .strings(let texts) = members[0] { expectedStrings = texts }
        if case .paths(let texts) = members[0] { expectedStrings = texts }
    default: break
    }
    switch described {
    case .bytes(let bytes): expectedBytes = bytes
    case .pairs(let pairs): expectedPairs = pairs
    default: break
    }
    fuzzRequire(sameStrings(value.strings, expectedStrings), "strings reader")
    fuzzRequire(value.bytes == expectedBytes, "bytes reader")
    let pairs = value.stringPairs
    fuzzRequire(
        (pairs == nil) == (expectedPairs == nil)
            && zip(pairs ?? [], expectedPairs ?? []).allSatisfy { sameScalars($0.key, $1.0) && sameScalars($0.value, $1.1) }
            && pairs?.count == expectedPairs?.count, "stringPairs reader")

    // What the store makes of an `Attributes` value.
    var expectedAttributes: [String: String] = [:]
    for (name, attribute) in expectedPairs ?? [] { expectedAttributes[name] = attribute }
    let attributes = SecretServiceReplies.attributes(value)
    fuzzRequire(
        attributes.count == expectedAttributes.count
            && attributes.allSatisfy { name, attribute in expectedAttributes[name].map { sameScalars($0, attribute) } ?? false },
        "attributes \(attributes), expected \(expectedAttributes)")

    switch described {
    case .variant(let inner):
        checkReaders(value.unboxed, inner, depth: depth + 1)
    case .vardict(let entries):
        let properties = value.properties ?? []
        fuzzRequire(properties.count == entries.count, "properties reader")
        for (property, entry) in zip(properties, entries) {
            fuzzRequire(sameScalars(property.key, entry.0), "property name")
            checkReaders(property.value, entry.1, depth: depth + 1)
        }
    case .tuple(let members):
        fuzzRequire(value.count == members.count, "tuple size")
        for (child, member) in zip(value.children, members) { checkReaders(child, member, depth: depth + 1) }
    default:
        fuzzRequire(value.unboxed.typeString == value.typeString, "unboxed of a value that is not a v")
    }
}

// MARK: the secret's encryption

/// The secret an independent AES-128-CBC and PKCS#7 check finds in `value`, or `nil` when it is malformed.
func referenceDecrypt(parameters: [UInt8], value: [UInt8]) -> [UInt8]? {
    guard parameters.count == 16, !value.isEmpty, value.count % 16 == 0, let iv = try? AES._CBC.IV(ivBytes: parameters),
        let plain = try? AES._CBC.decrypt(value, using: SymmetricKey(data: Fixture.sessionKey), iv: iv, noPadding: true)
    else { return nil }
    let bytes = Array(plain)
    let padding = Int(bytes.last!)
    guard (1...16).contains(padding), bytes.suffix(padding).allSatisfy({ $0 == UInt8(padding) }) else { return nil }
    return Array(bytes.dropLast(padding))
}

func message(_ error: VaultError) -> String? {
    if case .message(let text)? = error.underlying { return text }
    return nil
}

func checkDecrypt(parameters: [UInt8], value: [UInt8]) {
    let expected = referenceDecrypt(parameters: parameters, value: value)
    let secret: SecretBytes
    do {
        secret = try Fixture.session.decrypt(parameters: parameters, value: value)
    } catch {
        fuzzRequire(expected == nil, "refused a secret that decrypts")
        let fixed = [
            "the Secret Service sent a malformed secret (\(parameters.count)-byte IV, \(value.count) bytes)",
            "could not decrypt the secret the Secret Service sent",
        ]
        fuzzRequire(error.code == .storeUnavailable && message(error).map(fixed.contains) == true, "refusal \(error)")
        return
    }
    fuzzRequire(expected.map { secret == SecretBytes($0) } ?? false, "decrypted \(secret.count) bytes, expected \(String(describing: expected?.count))")
    guard let again = try? Fixture.session.encrypt(secret), let back = try? Fixture.session.decrypt(parameters: again.parameters, value: again.value)
    else {
        fuzzRequire(false, "an accepted secret does not encrypt and decrypt")
        return
    }
    fuzzRequire(back == secret, "an accepted secret does not survive encryption")
}

/// An IV and a value: either as given, or a well-formed IV and blocks the harness encrypts (so that the
/// unpadding sees plaintexts the mutator chose, not noise).
func readEncrypted(_ input: inout FuzzInput) -> (parameters: [UInt8], value: [UInt8]) {
    let choice = input.byte()
    let parameters = choice & 1 == 0 ? input.bytes(16) : input.field()
    var value = input.field()
    if choice & 2 == 0, parameters.count == 16, let iv = try? AES._CBC.IV(ivBytes: parameters) {
        value += [UInt8](repeating: 0, count: (16 - value.count % 16) % 16)
        value = (try? Array(AES._CBC.encrypt(value, using: SymmetricKey(data: Fixture.sessionKey), iv: iv, noPadding: true))) ?? value
    }
    return (parameters, value)
}

// MARK: replies

func checkGetSecrets(_ input: inout FuzzInput) {
    var entries: [(path: String, session: String, parameters: [UInt8], value: [UInt8], contentType: String)] = []
    for _ in 0..<(input.byte() % 6) {
        let choice = input.byte()
        let path = choice & 1 == 0 ? Fixture.itemPath : input.objectPath()
        let session = choice & 2 == 0 ? Fixture.sessionPath : input.objectPath()
        let (parameters, value) = readEncrypted(&input)
        entries.append((path, session, parameters, value, input.text()))
    }
    let built = DBusValue(taking: g_variant_ref_sink(getSecretsReply(entries)))
    let expected = entries.first { $0.path == Fixture.itemPath }
    do {
        let secret = try SecretServiceReplies.encryptedSecret(in: built, for: Fixture.itemPath, sessionPath: Fixture.sessionPath)
        guard let expected else {
            fuzzRequire(secret == nil, "a secret from a reply without the item")
            return
        }
        fuzzRequire(expected.session == Fixture.sessionPath, "took a secret of another session")
        fuzzRequire(secret?.parameters == expected.parameters && secret?.value == expected.value, "the entry's bytes changed")
        if let secret, !secret.value.isEmpty { checkDecrypt(parameters: secret.parameters, value: secret.value) }
    } catch {
        fuzzRequire(expected.map { $0.session != Fixture.sessionPath } == true, "refused the item's entry: \(error)")
        fuzzRequire(error.code == .storeUnavailable && message(error) == "GetSecrets answered for another session", "\(error)")
    }
}

/// GetSecrets' `(a{o(oayays)})`.
func getSecretsReply(_ entries: [(path: String, session: String, parameters: [UInt8], value: [UInt8], contentType: String)]) -> OpaquePointer {
    let type = g_variant_type_new("{o(oayays)}")
    defer { g_variant_type_free(type) }
    var raws: [OpaquePointer?] = entries.map { entry in
        var members: [OpaquePointer?] = [
            build(.path(entry.session)), build(.bytes(entry.parameters)), build(.bytes(entry.value)), build(.string(entry.contentType)),
        ]
        let secret = members.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        return g_variant_new_dict_entry(build(.path(entry.path)), secret)
    }
    var top: [OpaquePointer?] = [raws.withUnsafeMutableBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }]
    return top.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
}

func checkProperty(_ input: inout FuzzInput) {
    let inner = Described.read(&input)
    let value = reply(.tuple([.variant(inner)]))
    // As Call.property reads the property's value.
    checkReaders(value[0].unboxed, inner)
}

func checkSearch(_ input: inout FuzzInput) {
    let unlocked = (0..<Int(input.byte() % 8)).map { _ in input.objectPath() }
    let locked = (0..<Int(input.byte() % 8)).map { _ in input.objectPath() }
    let result = SecretServiceReplies.searchResult(reply(.tuple([.paths(unlocked), .paths(locked)])))
    fuzzRequire(result.unlocked == unlocked && result.locked == locked, "SearchItems' lists changed")
}

// MARK: the key exchange

/// `bytes` as a big-endian number without leading zeros, compared with another such number.
func compare(_ left: [UInt8], _ right: [UInt8]) -> Int {
    let left = Array(left.drop { $0 == 0 }), right = Array(right.drop { $0 == 0 })
    if left.count != right.count { return left.count < right.count ? -1 : 1 }
    for (a, b) in zip(left, right) where a != b { return a < b ? -1 : 1 }
    return 0
}

/// Whether 3 <= key <= p-3.
func isAcceptableServerKey(_ key: [UInt8]) -> Bool {
    var primeMinusThree = Fixture.prime
    primeMinusThree[primeMinusThree.count - 1] -= 3
    return compare(key, [3]) >= 0 && compare(key, primeMinusThree) <= 0
}

/// Whether `left` decrypts what `right` encrypts, and the other way round.
func sameSessionKey(_ left: SessionEncryption, _ right: SessionEncryption) -> Bool {
    let secret = SecretBytes(Array("a secret".utf8))
    guard let there = try? left.encrypt(secret), let back = try? right.encrypt(secret) else { return false }
    return (try? right.decrypt(parameters: there.parameters, value: there.value)) == secret
        && (try? left.decrypt(parameters: back.parameters, value: back.value)) == secret
}

func checkServerKey(_ key: [UInt8]) {
    do {
        let session = try SessionEncryption(peerPublicKey: key, keyPair: Fixture.clientPair)
        fuzzRequire(isAcceptableServerKey(key), "accepted a server key outside 3...p-3")
        let padded = try SessionEncryption(peerPublicKey: [0, 0] + key, keyPair: Fixture.clientPair)
        fuzzRequire(sameSessionKey(session, padded), "leading zero bytes change the session key")
    } catch {
        fuzzRequire(!isAcceptableServerKey(key), "refused the server key \(key): \(error)")
        fuzzRequire(error.code == .storeUnavailable, "refusal code \(error.code)")
    }
}

func checkOpenSession(_ input: inout FuzzInput) {
    let choice = input.byte()
    let inner: Described
    switch choice % 4 {
    case 0: inner = .bytes(input.field())
    case 1:
        // Near p, where the range check and the known-secret check lie.
        var key = Fixture.prime
        var borrow = Int(input.integer(bytes: 2))
        for index in key.indices.reversed() where borrow > 0 {
            let digit = Int(key[index]) - borrow % 256
            key[index] = UInt8((digit + 256) % 256)
            borrow = borrow / 256 + (digit < 0 ? 1 : 0)
        }
        inner = .bytes([UInt8](repeating: 0, count: Int(choice >> 6)) + key)
    case 2: inner = .bytes([UInt8](repeating: 0, count: Int(choice >> 4)) + input.bytes(Int(input.byte() % 4)))
    default: inner = Described.read(&input)
    }
    let sessionPath = input.objectPath()
    let value = reply(.tuple([.variant(inner), .path(sessionPath)]))
    do {
        let opened = try SecretServiceReplies.openedSession(value)
        guard case .bytes(let key) = inner else {
            fuzzRequire(false, "took a session key from a \(inner.typeString)")
            return
        }
        fuzzRequire(opened.serverPublicKey == key && opened.sessionPath == sessionPath, "OpenSession's output changed")
        checkServerKey(key)
    } catch {
        if case .bytes = inner { fuzzRequire(false, "refused an ay session key: \(error)") }
        fuzzRequire(error.code == .storeUnavailable, "refusal code \(error.code)")
    }
}

func checkExchange(_ input: inout FuzzInput) {
    let exponent = input.bytes(Int(input.byte() % 33))
    guard let server = try? SessionEncryption.KeyPair(privateExponent: exponent) else {
        fuzzRequire(false, "no key pair for an exponent of \(exponent.count) bytes")
        return
    }
    checkServerKey(server.publicKey)
    guard let client = try? SessionEncryption(peerPublicKey: server.publicKey, keyPair: Fixture.clientPair),
        let serverSide = try? SessionEncryption(peerPublicKey: Fixture.clientPair.publicKey, keyPair: server)
    else { return }
    fuzzRequire(sameSessionKey(client, serverSide), "the two ends of an exchange hold different keys")
    fuzzRequire(client.keyDependsOnSecretWidth == serverSide.keyDependsOnSecretWidth, "the shared secret's width differs")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecretServiceReply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    switch input.byte() % 6 {
    case 0: checkGetSecrets(&input)
    case 1: checkProperty(&input)
    case 2: checkSearch(&input)
    case 3: checkOpenSession(&input)
    case 4:
        let (parameters, value) = readEncrypted(&input)
        checkDecrypt(parameters: parameters, value: value)
    default: checkExchange(&input)
    }
    return 0
}

runLibFuzzer(fuzzSecretServiceReply)
#endif
