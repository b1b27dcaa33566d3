// libFuzzer target: `JSONValue.parse` (BiometricsVaultJSON), the exact JSON value the CLI reads from
// stdin or --from-file for `store` and `update`, and the vault reads back from a stored item, and its
// printer.
//
// Invariants, for every input:
// - parsing never traps (AddressSanitizer is on); a rejection is a `JSONSyntaxError` whose description is
//   made of fixed words and a byte offset only (the input may be a secret; see isSecretFreeDescription);
// - an accepted value prints (`jsonText`) exactly the input without its insignificant whitespace (what
//   `show` prints is what `store` read: every number literal, escape and member order kept);
// - the printed text parses again to an equal value and prints the same text (the vault stores the
//   printed text and reads it back with the same parser).
#if os(Linux)
import BiometricsVaultJSON
import FuzzSupport

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

/// A rejection's description is, by construction, "<a JSONSyntaxError.Reason> at byte N", where only a
/// duplicate member's name (deliberately reported) comes from the input. Checked by shape rather than by
/// searching the input in the description, which flags inputs that happen to be words of it.
func isSecretFreeDescription(_ error: JSONSyntaxError, inputSize: Int) -> Bool {
    let text = error.description
    guard (0...inputSize).contains(error.offset), text.hasPrefix(error.reason.rawValue) else { return false }
    let tail = text.dropFirst(error.reason.rawValue.count)
    let suffix = " at byte \(error.offset)"
    guard tail.hasSuffix(suffix) else { return false }
    let between = tail.dropLast(suffix.count)
    switch error.reason {
    case .duplicateMemberName: return error.memberName != nil && between.hasPrefix(" \"") && between.hasSuffix("\"")
    case .noValue, .trailingData, .unexpectedEnd, .unexpectedNonASCII, .unexpectedCharacter, .expectedCommaOrBracket,
        .expectedMemberName, .expectedColon, .expectedCommaOrBrace, .leadingZero, .expectedDigit, .expectedFractionDigit,
        .expectedExponentDigit, .unterminatedString, .controlCharacterInString, .loneLowSurrogate, .loneHighSurrogate,
        .invalidUnicodeEscape, .invalidEscape, .expectedHexDigits, .invalidUTF8, .tooDeep:
        return error.memberName == nil && between.isEmpty
    }
}

func checkCredentialsInput(_ bytes: [UInt8]) {
    let value: JSONValue
    do {
        value = try JSONValue.parse(bytes)
    } catch {
        fuzzRequire(isSecretFreeDescription(error, inputSize: bytes.count), "the error is not built from fixed words: \(error)")
        fuzzRequire((error.reason == .noValue) == bytes.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }), "noValue means only white space")
        return
    }
    let printed = value.jsonText
    fuzzRequire(Array(printed.utf8) == withoutInsignificantWhitespace(bytes), "printing changes the JSON text")
    guard let reparsed = try? JSONValue.parse(Array(printed.utf8)) else {
        fuzzRequire(false, "printed JSON does not parse again")
        return
    }
    fuzzRequire(reparsed == value, "printed JSON parses to another value")
    fuzzRequire(reparsed.jsonText == printed, "printing settles")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONValue(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkCredentialsInput(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

runLibFuzzer(fuzzJSONValue)
#endif
