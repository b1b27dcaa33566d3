// libFuzzer target: the CLI's credentials input, `JSONValue.parse` (what `store` and `update` read from
// stdin or --from-file, and what the vault reads back from a stored item), and its printer. Compiled by
// scripts/fuzz.sh straight from Sources/biometrics-vault/Support/JSONValue.swift (not a SwiftPM target:
// SwiftPM lets no other target import an executable's code).
//
// Invariants, for every input:
// - parsing never traps (AddressSanitizer is on); a rejection is `badInput` and its message is made of
//   fixed words and a byte offset only (the input may be a secret; see isSecretFreeMessage);
// - an accepted value prints (`jsonText`) exactly the input without its insignificant whitespace (what
//   `show` prints is what `store` read: every number literal, escape and member order kept);
// - the printed text parses again to an equal value and prints the same text (the vault stores the
//   printed text and reads it back with the same parser).
//
// Built as one module with swiftc -parse-as-library (FuzzSupport's file compiled in): libFuzzer's own
// `main` drives it, so unlike the SwiftPM targets it has no top-level code.
import Foundation

/// The input without the whitespace outside strings: an independent spelling of "insignificant
/// whitespace removed", for accepted (hence valid) JSON only.
func withoutInsignificantWhitespace(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    var inString = false
    var escaped = false
    for byte in bytes {
        if inString {
            result.append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
        } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            continue
        } else {
            if byte == UInt8(ascii: "\"") { inString = true }
            result.append(byte)
        }
    }
    return result
}

/// A rejection's message is, by construction, fixed words and a byte offset: "no credentials on
/// stdin: ...", or "stdin is not valid JSON: <a JSONSyntaxError.Reason> at byte N", where only a
/// duplicate member's name (deliberately reported) comes from the input. Checked by shape rather than
/// by searching the input in the message, which flags inputs that happen to be words of the message.
func isSecretFreeMessage(_ message: String) -> Bool {
    if message == "no credentials on stdin: expected a JSON value" { return true }
    let prefix = "stdin is not valid JSON: "
    guard message.hasPrefix(prefix) else { return false }
    let rest = message.dropFirst(prefix.count)
    let reasons = JSONSyntaxError.Reason.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
    guard let reason = reasons.first(where: { rest.hasPrefix($0.rawValue) }) else { return false }
    let tail = rest.dropFirst(reason.rawValue.count)
    guard let at = tail.range(of: " at byte ", options: .backwards) else { return false }
    let offset = tail[at.upperBound...]
    guard !offset.isEmpty, offset.allSatisfy(\.isASCII), offset.allSatisfy(\.isNumber) else { return false }
    let between = tail[..<at.lowerBound]
    return reason == .duplicateMemberName ? between.hasPrefix(" \"") && between.hasSuffix("\"") : between.isEmpty
}

func checkCredentialsInput(_ data: Data) {
    let value: JSONValue
    do {
        value = try JSONValue.parse(data, source: "stdin")
    } catch {
        fuzzRequire(error.code == "badInput", "rejection is badInput, got \(error.code)")
        fuzzRequire(isSecretFreeMessage(error.message), "the error message is not built from fixed words: \(error.message)")
        return
    }
    let printed = value.jsonText
    fuzzRequire(Array(printed.utf8) == withoutInsignificantWhitespace([UInt8](data)), "printing changes the JSON text")
    guard let reparsed = try? JSONValue.parse(Data(printed.utf8), source: "the stored item") else {
        fuzzRequire(false, "printed JSON does not parse again")
        return
    }
    fuzzRequire(reparsed == value, "printed JSON parses to another value")
    fuzzRequire(reparsed.jsonText == printed, "printing settles")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCLIJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkCredentialsInput(Data(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
