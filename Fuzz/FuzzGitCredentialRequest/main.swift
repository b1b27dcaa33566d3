// libFuzzer target: the git credential helper's request, `GitCredentialRequest(parsing:)` and
// `GitCredentialRequest.read(from:)` (its bounded reader, RequestReader), the attribute lines git writes on
// the helper's stdin. git passes on what a remote's URL, a repository's config or a user's script gave it.
//
// Invariants, for every input:
// - nothing traps (AddressSanitizer is on); a refusal is a `CredentialHelperInputError` whose message is
//   one of the fixed texts, naming at most the attribute whose value was refused, never a value;
// - the parse agrees with an independent spelling of the format (lines up to the first blank one; the
//   last value of a name counts; `name[]` and lines without `=` ignored; a value with NUL or CR refused);
// - an accepted request prints (`name=value` lines) to a request that parses to the same attributes,
//   scalar for scalar; its item's `protocolText` exists and parses back to the item; the item's stored
//   JSON, printed and parsed again, is the same item, and that item answers the request;
// - its vault key is valid, is one of the helper's (`GitCredentialKey.isKey`), splits at its separator
//   bytes into parts that name the request's (`CredentialHelperKey.part`) and decode to them unless
//   digested, and the request matches it (without a username: the keys of every username too);
// - two requests (mode 2) share a key only when protocol, host, path and username are the same scalars;
// - through the reader (mode 1, from a file of up to 72 KiB): the request is the bytes before the first
//   blank line, or all of them, and a request of more than `readLimit` bytes is refused as too long.
//
// The first input byte picks the mode (mod 3): 0, the rest is a request; 1, three bytes of stream
// length and a unit repeated to that length, read from a descriptor; 2, two requests split at the first
// blank line.
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultCredentialHelpers
import BiometricsVaultJSON
import FuzzSupport

enum Fixture {
    static let stdin = ScratchFile()
    static let utf8Refusal = "git's request is not valid UTF-8 text; nothing was read or stored"
    static let tooLong = "git's request is longer than \(GitCredentialRequest.readLimit / 1024) KiB; nothing was stored"
    static func valueRefusal(_ name: String) -> String {
        "git's request has a NUL or carriage return inside the value of '\(name)'; nothing was read or stored"
    }
}

/// The format as the documentation states it, spelled over bytes and scalars: the expected attributes,
/// or the expected refusal's message.
func expectedAttributes(_ bytes: [UInt8]) -> Result<[String: String], CredentialHelperInputError> {
    var attributes: [String: String] = [:]
    for var line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        if line.last == 0x0D { line = line.dropLast() }
        if line.isEmpty { break }
        guard let text = String(validating: line, as: UTF8.self) else { return .failure(CredentialHelperInputError(Fixture.utf8Refusal)) }
        let scalars = Array(text.unicodeScalars)
        guard let equals = scalars.firstIndex(of: "=") else { continue }
        var name = ""
        name.unicodeScalars.append(contentsOf: scalars[..<equals])
        if scalars[..<equals].suffix(2).elementsEqual(["[", "]"]) { continue }
        let value = scalars[(equals + 1)...]
        if value.contains("\0") || value.contains("\r") { return .failure(CredentialHelperInputError(Fixture.valueRefusal(name))) }
        var valueText = ""
        valueText.unicodeScalars.append(contentsOf: value)
        attributes[name] = valueText
    }
    return .success(attributes)
}

func sameAttributes(_ left: [String: String], _ right: [String: String]) -> Bool {
    left.count == right.count && left.allSatisfy { name, value in right[name].map { sameScalars($0, value) } ?? false }
}

func sameOptional(_ left: String?, _ right: String?) -> Bool {
    switch (left, right) {
    case (nil, nil): true
    case (let left?, let right?): sameScalars(left, right)
    default: false
    }
}

func sameItem(_ left: GitCredentialItem, _ right: GitCredentialItem, ignoringPath: Bool = false) -> Bool {
    sameScalars(left.scheme, right.scheme) && sameScalars(left.host, right.host) && (ignoringPath || sameOptional(left.path, right.path))
        && sameOptional(left.username, right.username) && sameOptional(left.password, right.password)
        && sameOptional(left.passwordExpiryUTC, right.passwordExpiryUTC) && sameOptional(left.oauthRefreshToken, right.oauthRefreshToken)
}

/// Parses as the helper does, checking the refusal against the expected one.
func parse(_ bytes: [UInt8]) -> GitCredentialRequest? {
    let expected = expectedAttributes(bytes)
    do {
        let request = try GitCredentialRequest(parsing: bytes)
        guard case .success(let attributes) = expected else {
            fuzzRequire(false, "accepted a request the format refuses: \(expected)")
            return nil
        }
        fuzzRequire(sameAttributes(request.attributes, attributes), "attributes differ from the format's: \(request.attributes) vs \(attributes)")
        return request
    } catch {
        fuzzRequire(expected == .failure(error), "refusal \(error.message) where the format gives \(expected)")
        return nil
    }
}

/// The key's fields as `GitCredentialKey` documents them, `git:PROTOCOL:[USERNAME@]HOST[:PATH]`, split at
/// the separator bytes (which encoded parts never hold).
func keyParts(_ key: String) -> (scheme: Substring, username: Substring?, host: Substring, path: Substring?)? {
    let bytes = key.utf8
    guard bytes.starts(with: GitCredentialKey.prefix.utf8) else { return nil }
    let fields = bytes.dropFirst(GitCredentialKey.prefix.utf8.count).split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    guard fields.count == 2 || fields.count == 3 else { return nil }
    let userAndHost = fields[1].split(separator: UInt8(ascii: "@"), maxSplits: 1, omittingEmptySubsequences: false)
    return (
        Substring(fields[0]), userAndHost.count == 2 ? Substring(userAndHost[0]) : nil, Substring(userAndHost.last!),
        fields.count == 3 ? Substring(fields[2]) : nil
    )
}

/// A key part names `value`, and decodes to it unless it is a digest form.
func checkPart(_ part: Substring, _ value: String) {
    fuzzRequire(CredentialHelperKey.part(part, names: value), "key part \(part) does not name \(value.unicodeScalars.map(\.value))")
    if let decoded = CredentialHelperKey.decode(part) {
        fuzzRequire(sameScalars(decoded, value), "key part \(part) decodes to another value")
    } else {
        fuzzRequire(part.utf8.contains(CredentialHelperKey.digestMarker.utf8), "key part \(part) neither decodes nor is a digest form")
    }
}

func checkKey(_ request: GitCredentialRequest, scheme: String) {
    guard let key = GitCredentialKey.key(for: request) else {
        fuzzRequire(false, "a request with a protocol has no key")
        return
    }
    fuzzRequire((try? SecretItemID(service: "git", key: key)) != nil, "the key is not a valid vault key: \(key)")
    fuzzRequire(GitCredentialKey.isKey(key), "the helper does not take its key for one of its own")
    guard let parts = keyParts(key) else {
        fuzzRequire(false, "the key does not split into its parts: \(key)")
        return
    }
    checkPart(parts.scheme, scheme)
    checkPart(parts.host, request.host)
    fuzzRequire((parts.username == nil) == (request.username == nil), "username present in the key iff in the request")
    if let part = parts.username, let username = request.username { checkPart(part, username) }
    fuzzRequire((parts.path == nil) == (request.path == nil), "path present in the key iff in the request")
    if let part = parts.path, let path = request.path { checkPart(part, path) }
    fuzzRequire(GitCredentialKey.matches(request, among: [key]) == [key], "a request does not match its own key")

    // Without a username, git asks for any: the items stored under every username match, the one
    // without a username first.
    var anonymous = request
    anonymous.attributes["username"] = nil
    let anonymousKey = GitCredentialKey.key(for: anonymous)!
    let someone = GitCredentialKey.key(scheme: scheme, host: request.host, path: request.path, username: "someone")
    let keys = Array(Set([key, anonymousKey, someone]))
    let matches = GitCredentialKey.matches(anonymous, among: keys)
    fuzzRequire(matches.first == anonymousKey && Set(matches) == Set(keys), "a request without username misses keys: \(matches) of \(keys)")
}

func checkItem(_ request: GitCredentialRequest) {
    guard let item = request.item else { return }
    fuzzRequire(item.answers(request), "the item made from a request does not answer it")
    // Values of an accepted request hold no LF, CR or NUL: the item is always one protocol text.
    guard let text = item.protocolText else {
        fuzzRequire(false, "an accepted request's item has no protocol text")
        return
    }
    guard let reparsed = try? GitCredentialRequest(parsing: Array(text.utf8)), let again = reparsed.item else {
        fuzzRequire(false, "the item's protocol text does not parse: \(text)")
        return
    }
    fuzzRequire(sameItem(again, item, ignoringPath: true) && again.path == nil, "protocol text changes the item")
    guard let stored = try? JSONValue.parse(Array(item.json.jsonText.utf8)), let restored = GitCredentialItem(json: stored) else {
        fuzzRequire(false, "the item's stored JSON does not read back as the helper's item")
        return
    }
    fuzzRequire(sameItem(restored, item), "the stored JSON changes the item")
}

func checkRequest(_ bytes: [UInt8]) -> GitCredentialRequest? {
    guard let request = parse(bytes) else { return nil }
    // Printing the attributes gives a request with the same attributes.
    let printed = request.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
    let reparsed = try? GitCredentialRequest(parsing: Array(printed.utf8))
    fuzzRequire(reparsed.map { sameAttributes($0.attributes, request.attributes) } ?? false, "printed attributes parse differently")
    checkItem(request)
    if let scheme = request.scheme { checkKey(request, scheme: scheme) }
    return request
}

/// The bytes the reader hands to the parser: those before the first blank line (`\n` or `\r\n` alone),
/// or all of them; `nil` when that is more than `limit`.
func expectedRequestBytes(_ stream: [UInt8], limit: Int) -> [UInt8]? {
    var lineStart = 0
    for index in stream.indices where stream[index] == 0x0A {
        let length = index - lineStart
        if length == 0 || (length == 1 && stream[lineStart] == 0x0D) { return lineStart <= limit ? Array(stream[..<lineStart]) : nil }
        lineStart = index + 1
    }
    return stream.count <= limit ? stream : nil
}

func checkReader(length: Int, unit: [UInt8]) {
    let stream = repeated(unit, toLength: length)
    let expected = expectedRequestBytes(stream, limit: GitCredentialRequest.readLimit)
    do {
        let request = try GitCredentialRequest.read(from: Fixture.stdin.load(stream))
        guard let expected, let direct = try? GitCredentialRequest(parsing: expected) else {
            fuzzRequire(false, "the reader accepted what is too long or refused")
            return
        }
        fuzzRequire(sameAttributes(request.attributes, direct.attributes), "the reader's request differs from the parsed bytes")
    } catch {
        if let expected {
            fuzzRequire(expectedAttributes(expected) == .failure(error), "the reader refused (\(error.message)) what parses")
        } else {
            fuzzRequire(error.message == Fixture.tooLong, "a request too long is refused as \(error.message)")
        }
    }
}

func checkTwoRequests(_ bytes: [UInt8]) {
    var split = bytes.count
    for index in bytes.indices.dropLast() where bytes[index] == 0x0A && bytes[index + 1] == 0x0A {
        split = index
        break
    }
    guard let first = checkRequest(Array(bytes[..<split])), let second = checkRequest(Array(bytes[min(split + 2, bytes.count)...])),
        let firstKey = GitCredentialKey.key(for: first), let secondKey = GitCredentialKey.key(for: second)
    else { return }
    let same = sameOptional(first.scheme, second.scheme) && sameScalars(first.host, second.host) && sameOptional(first.path, second.path)
        && sameOptional(first.username, second.username)
    fuzzRequire(firstKey.utf8.elementsEqual(secondKey.utf8) == same, "keys \(firstKey) and \(secondKey): same request \(same)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGitCredentialRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    switch input.byte() % 3 {
    case 0:
        _ = checkRequest(input.rest())
    case 1:
        let length = streamLength(input.integer(bytes: 3), limit: GitCredentialRequest.readLimit)
        checkReader(length: length, unit: input.rest())
    default:
        checkTwoRequests(input.rest())
    }
    return 0
}

runLibFuzzer(fuzzGitCredentialRequest)
#endif
