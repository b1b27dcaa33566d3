// libFuzzer target: the docker credential helper's request, what docker, podman, skopeo or buildah write
// on its stdin: `DockerCredentialProtocol.readRequest(from:)` (bounded, strictly UTF-8), the server URL of
// `get`/`erase` (`serverURL(in:)`) and its vault key, and the JSON object of `store` (`JSONValue.parse`,
// `DockerCredentialItem(request:)`).
//
// Invariants, for every input:
// - nothing traps (AddressSanitizer is on); a refusal is a `CredentialHelperInputError` with one of the
//   protocol's fixed messages, so it never repeats the request (which holds the secret);
// - the server URL is the text without its surrounding white space, never empty, and refused only when
//   the text is all white space;
// - the URL's vault key is valid, starts with `docker:` (as bytes, and for `DockerCredentialKey.isKey`, by
//   which `list` picks the helper's keys), names the URL (`CredentialHelperKey.part`) and decodes to it
//   (`serverURL(inKey:)`, how `list` reads a protected item's URL) unless digested;
// - an accepted `store` object gives the item its members hold, non-empty `ServerURL` and `Username`; the
//   item's stored JSON, printed and parsed again, reads back (`DockerCredentialItem(stored:)`) as the same
//   item, scalar for scalar;
// - through the reader (mode 1, from a file of up to 72 KiB): the text is the whole input when it is at
//   most `readLimit` bytes of UTF-8, else a refusal saying which.
//
// The first input byte picks the mode (mod 2): 0, the rest is the request; 1, three bytes of stream
// length and a unit repeated to that length, read from a descriptor.
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultCredentialHelpers
import BiometricsVaultJSON
import FuzzSupport

enum Fixture {
    static let stdin = ScratchFile()
    static let tooLong = "the request on stdin is longer than \(DockerCredentialProtocol.readLimit / 1024) KiB; nothing was read or stored"
    static let notUTF8 = "the request on stdin is not valid UTF-8 text; nothing was read or stored"
    static let storeRefusals: Set<String> = [
        "the credentials on stdin are not a JSON object", DockerCredentialProtocol.missingServerURLMessage,
        DockerCredentialProtocol.missingUsernameMessage, "'ServerURL' is not a JSON string", "'Username' is not a JSON string",
        "'Secret' is not a JSON string",
    ]
}

func checkServerURL(_ text: String) {
    let scalars = Array(text.unicodeScalars)
    let url: String
    do {
        url = try DockerCredentialProtocol.serverURL(in: text)
    } catch {
        fuzzRequire(error.message == DockerCredentialProtocol.missingServerURLMessage, "server URL refusal: \(error.message)")
        fuzzRequire(scalars.allSatisfy(\.properties.isWhitespace), "a URL was refused in text that is not all white space")
        return
    }
    let urlScalars = Array(url.unicodeScalars)
    fuzzRequire(!urlScalars.isEmpty, "an empty server URL")
    fuzzRequire(!urlScalars.first!.properties.isWhitespace && !urlScalars.last!.properties.isWhitespace, "the URL keeps white space")
    let leading = scalars.prefix { $0.properties.isWhitespace }.count
    let trailing = scalars.reversed().prefix { $0.properties.isWhitespace }.count
    fuzzRequire(scalars[leading..<(scalars.count - trailing)].elementsEqual(urlScalars), "the URL is not the text without its surrounding white space")

    let key = DockerCredentialKey.key(serverURL: url)
    fuzzRequire((try? SecretItemID(service: "docker", key: key)) != nil, "the key is not a valid vault key: \(key)")
    // Compared as bytes: the prefix is what a byte-wise reader of the key (a store, another tool) sees.
    fuzzRequire(key.utf8.starts(with: DockerCredentialKey.prefix.utf8), "the key lost its prefix")
    let part = Substring(key.utf8.dropFirst(DockerCredentialKey.prefix.utf8.count))
    fuzzRequire(CredentialHelperKey.part(part, names: url), "the key does not name its URL")
    if let decoded = CredentialHelperKey.decode(part) {
        fuzzRequire(sameScalars(decoded, url), "the key decodes to another URL")
    } else {
        fuzzRequire(part.utf8.contains(CredentialHelperKey.digestMarker.utf8), "the key neither decodes nor is a digest form")
    }
    // As `list` reads the helper's keys (a protected item's URL comes from its key alone).
    fuzzRequire(DockerCredentialKey.isKey(key), "list does not take the key for the helper's")
    let listed = DockerCredentialKey.serverURL(inKey: key)
    fuzzRequire(listed.map { sameScalars($0, url) } ?? part.utf8.contains(CredentialHelperKey.digestMarker.utf8), "list reads another URL")
}

func checkStore(_ bytes: [UInt8]) {
    guard let json = try? JSONValue.parse(bytes) else { return }  // the JSON parser has its own target
    let item: DockerCredentialItem
    do {
        item = try DockerCredentialItem(request: json)
    } catch {
        fuzzRequire(Fixture.storeRefusals.contains(error.message), "store refusal with an unexpected message: \(error.message)")
        return
    }
    func member(_ name: String) -> String? {
        if case .string(let value)? = json.member(named: name) { return value.value }
        return nil
    }
    fuzzRequire(!item.serverURL.isEmpty && !item.username.isEmpty, "an item without server URL or username")
    fuzzRequire(member("ServerURL").map { sameScalars($0, item.serverURL) } ?? false, "ServerURL is not the member's")
    fuzzRequire(member("Username").map { sameScalars($0, item.username) } ?? false, "Username is not the member's")
    fuzzRequire(sameScalars(member("Secret") ?? "", item.secret), "Secret is not the member's")
    guard let stored = try? JSONValue.parse(Array(item.json.jsonText.utf8)), let restored = DockerCredentialItem(stored: stored) else {
        fuzzRequire(false, "the item's stored JSON does not read back")
        return
    }
    fuzzRequire(
        sameScalars(restored.serverURL, item.serverURL) && sameScalars(restored.username, item.username)
            && sameScalars(restored.secret, item.secret), "the stored JSON changes the item")
}

func checkText(_ text: String) {
    checkServerURL(text)
    checkStore(Array(text.utf8))
}

func checkReader(length: Int, unit: [UInt8]) {
    let stream = repeated(unit, toLength: length)
    do {
        let text = try DockerCredentialProtocol.readRequest(from: Fixture.stdin.load(stream))
        fuzzRequire(stream.count <= DockerCredentialProtocol.readLimit, "the reader took more than its limit")
        fuzzRequire(text.utf8.elementsEqual(stream), "the reader's text is not the input")
    } catch {
        if stream.count > DockerCredentialProtocol.readLimit {
            fuzzRequire(error.message == Fixture.tooLong, "a request too long is refused as \(error.message)")
        } else {
            fuzzRequire(String(validating: stream, as: UTF8.self) == nil && error.message == Fixture.notUTF8, "refused: \(error.message)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDockerCredentialRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    if input.byte() % 2 == 0 {
        // The helper takes only UTF-8 (readRequest refuses the rest, checked in mode 1).
        guard let text = String(validating: input.rest(), as: UTF8.self) else { return 0 }
        checkText(text)
    } else {
        let length = streamLength(input.integer(bytes: 3), limit: DockerCredentialProtocol.readLimit)
        checkReader(length: length, unit: input.rest())
    }
    return 0
}

runLibFuzzer(fuzzDockerCredentialRequest)
#endif
