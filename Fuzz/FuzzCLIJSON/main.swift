// libFuzzer target: the CLI's credentials input, `JSONValue.parse` (what `store` and `update` read from
// stdin or --from-file), and the JSON the vault then writes and reads back. Compiled by scripts/fuzz.sh
// straight from Sources/biometrics-vault/Support/JSONValue.swift (not a SwiftPM target: SwiftPM lets no
// other target import an executable's code).
//
// Invariants, for every input:
// - parsing never traps (AddressSanitizer is on); a rejection is `badInput` and its message never
//   contains the input (the input may be a secret);
// - an accepted value prints (`jsonText`) to JSON that parses again to the same JSON value, and printing
//   settles after one round (print, parse, print gives a fixed point);
// - the vault's own round trip (JSONEncoder, then JSONDecoder into JSONValue, as VaultDriver does) gives
//   the same JSON value: what `show` prints is what `store` read.
//
// "The same JSON value" compares numbers as most JSON readers do, as doubles. JSONValue keeps integers
// that fit Int64 apart from other numbers, so a double at or above 2^53, e.g. 9222337203685477581.5,
// prints as "9.222337203685478e+18" and comes back as the integer 9222337203685478000: the same double,
// another spelling and, read as an integer, not exactly the same number (found by this target).
//
// Built as one module with swiftc -parse-as-library (FuzzSupport's file compiled in): libFuzzer's own
// `main` drives it, so unlike the SwiftPM targets it has no top-level code.
import Foundation

/// JSON equality: objects and arrays member by member, numbers by value whichever case holds them.
func sameJSON(_ left: JSONValue, _ right: JSONValue) -> Bool {
    switch (left, right) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.integer(let a), .integer(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): return Double(a) == b
    case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameJSON)
    case (.object(let a), .object(let b)):
        return a.count == b.count && a.allSatisfy { key, value in b[key].map { sameJSON(value, $0) } ?? false }
    default: return false
    }
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
    guard let reparsed = try? JSONValue.parse(Data(printed.utf8), source: "stdin") else {
        fuzzRequire(false, "printed JSON does not parse again")
        return
    }
    fuzzRequire(sameJSON(reparsed, value), "printed JSON parses to another value")
    let settled = reparsed.jsonText
    fuzzRequire((try? JSONValue.parse(Data(settled.utf8), source: "stdin"))?.jsonText == settled, "printing settles")

    guard let stored = try? JSONEncoder().encode(value) else {
        fuzzRequire(false, "an accepted value does not encode for the vault")
        return
    }
    let restored = try? JSONDecoder().decode(JSONValue.self, from: stored)
    fuzzRequire(restored.map { sameJSON($0, value) } ?? false, "the vault round trip changes the credentials")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCLIJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkCredentialsInput(Data(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
