// libFuzzer target: the CLI's credentials input, `JSONValue.parse` (what `store` and `update` read from
// stdin or --from-file, and what the vault reads back from a stored item), and its printer. Compiled by
// scripts/fuzz.sh straight from Sources/biometrics-vault/Support/JSONValue.swift (not a SwiftPM target:
// SwiftPM lets no other target import an executable's code).
//
// Invariants, for every input:
// - parsing never traps (AddressSanitizer is on); a rejection is `badInput` and its message never
//   contains the input (the input may be a secret);
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

func checkCredentialsInput(_ data: Data) {
    let value: JSONValue
    do {
        value = try JSONValue.parse(data, source: "stdin")
    } catch {
        fuzzRequire(error.code == "badInput", "rejection is badInput, got \(error.code)")
        if data.count >= 4, let text = String(data: data, encoding: .utf8),
            !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        {
            // Compared as UTF-8 bytes: Foundation's `contains` stops at an embedded NUL, so "N\0\0..."
            // would "match" any message with an N in it (a false alarm the fuzzer found).
            fuzzRequire(error.message.utf8.firstRange(of: text.utf8) == nil, "the error message quotes the input")
        }
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
