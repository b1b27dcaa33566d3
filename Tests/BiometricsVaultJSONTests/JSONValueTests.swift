import BiometricsVaultCore
import BiometricsVaultJSON
import Foundation
import Testing

/// The exact JSON value: what goes in comes out byte for byte, what earlier versions stored still reads,
/// and a rejection says where and why, never what.
@Suite struct JSONValueTests {
    /// Inputs whose compact text is the input without its insignificant whitespace.
    @Test("a parsed value prints its input exactly, without insignificant whitespace", arguments: [
        (" \n\t{ \"k\" : [ ] } \n", #"{"k":[]}"#),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("[-0, 1.0E+2, 1e400, -0.0E-7, 9223372036854775808]", "[-0,1.0E+2,1e400,-0.0E-7,9223372036854775808]"),
        (#"{"z":1, "a":2}"#, #"{"z":1,"a":2}"#),
        (#""\u00e9\/\n""#, #""\u00e9\/\n""#),
        (#"{"a":{"b":[true,false,null]}}"#, #"{"a":{"b":[true,false,null]}}"#),
    ])
    func printsTheInputExactly(input: String, printed: String) throws {
        let value = try JSONValue.parse(Array(input.utf8))
        #expect(value.jsonText == printed)
        #expect(try JSONValue.parse(Array(value.jsonText.utf8)) == value)
    }

    /// `show --field` prints `rawText`; `exec --env` and the credential helpers take `scalarText`: for a
    /// number both are the literal as stored.
    @Test("a field reads the same as raw and as scalar text", arguments: [
        (#""a\"b\u00e9""#, "a\"bé", "a\"bé" as String?),
        ("123456789012345678901234567890", "123456789012345678901234567890", "123456789012345678901234567890"),
        ("-0.0E-7", "-0.0E-7", "-0.0E-7"), ("true", "true", "true"),
        ("null", "null", nil), ("[1]", "[1]", nil), (#"{"a":1}"#, #"{"a":1}"#, nil),
    ])
    func fieldText(json: String, raw: String, scalar: String?) throws {
        let value = try JSONValue.parse(Array(#"{"f":\#(json)}"#.utf8)).member(named: "f")
        #expect(value?.rawText == raw)
        #expect(value?.scalarText == scalar)
    }

    /// Earlier versions stored `JSONEncoder` output with sorted keys (numbers as Double, `/` escaped).
    @Test func itemsStoredByEarlierVersionsStillRead() throws {
        struct Earlier: Encodable {
            let n = 1.2345678901234568e+29
            let url = "https://example.com/x"
            let nested = ["b": [Int64.max], "a": []]
            let none: String? = nil
            let unicode = "é😀\u{1}"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let stored = try encoder.encode(Earlier())
        let value = try JSONValue(storedJSONText: stored)
        #expect(try value.jsonTextForStorage() == stored)
        #expect(value.member(named: "url")?.rawText == "https://example.com/x")
    }

    @Test func reportsAreCompactJSONWithEscapedStrings() throws {
        let report: JSONValue = .object([
            "b": .string("quote\" back\\ nl\n \u{1} \u{2028}"), "a": .integer(-5), "c": .array([.bool(true), .null]),
        ])
        #expect(report.jsonText == #"{"a":-5,"b":"quote\" back\\ nl\n \u0001 \u2028","c":[true,null]}"#)
        let reparsed = try JSONValue.parse(Array(report.jsonText.utf8))
        #expect(reparsed == report)
        #expect(reparsed.member(named: "b")?.rawText == "quote\" back\\ nl\n \u{1} \u{2028}")
    }

    @Test func codableIsRefusedRatherThanLossy() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(JSONValue.integer(1)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data("1".utf8)) }
    }

    /// Each rejection: its reason and offset, and a description of fixed words that never quotes the input.
    @Test("invalid JSON is rejected with a reason and a byte offset", arguments: [
        ("", JSONSyntaxError.Reason.noValue, 0), (" \n\t", .noValue, 3), ("{} x", .trailingData, 3),
        ("[1,", .unexpectedEnd, 3), ("[secret]", .unexpectedCharacter, 1), ("\"a\u{1}\"", .controlCharacterInString, 2),
        ("01", .leadingZero, 1), ("-", .expectedDigit, 1), ("1.", .expectedFractionDigit, 2),
        ("1e", .expectedExponentDigit, 2), (#"{"a" 1}"#, .expectedColon, 5), (#"{"a":1 "b"}"#, .expectedCommaOrBrace, 7),
        ("[1 2]", .expectedCommaOrBracket, 3), ("{1:2}", .expectedMemberName, 1), (#""\udc00""#, .loneLowSurrogate, 1),
        (#""\ud800x""#, .loneHighSurrogate, 1), (#""\q""#, .invalidEscape, 1), (#""\u12g4""#, .expectedHexDigits, 5),
        ("\"pass", .unterminatedString, 5), ("tru", .unexpectedEnd, 3), ("é", .unexpectedNonASCII, 0),
        (String(repeating: "[", count: 513), .tooDeep, 512),
    ])
    func rejections(input: String, reason: JSONSyntaxError.Reason, offset: Int) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Array(input.utf8)) }
        #expect(error?.reason == reason)
        #expect(error?.offset == offset)
        #expect(error?.memberName == nil)
        #expect(error?.description == "\(reason.rawValue) at byte \(offset)")
    }

    @Test("invalid UTF-8 is rejected", arguments: [[0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22]])
    func invalidUTF8(bytes: [UInt8]) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(bytes) }
        #expect(error?.reason == .invalidUTF8)
        #expect(error?.offset == 1)
    }

    /// The vault reports any throw of `init(storedJSONText:)` as `corruptedItem`; it must not carry the bytes.
    @Test func aStoredItemThatIsNotJSONThrowsWithoutItsBytes() {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue(storedJSONText: Data("s3cret-token".utf8)) }
        #expect(error?.description == "unexpected character at byte 0")
    }
}

/// The duplicate-member check: it must find a repeated name wherever it is, in objects of any size, and
/// never call distinct names equal.
@Suite struct DuplicateMemberNameTests {
    /// `{"m0":0,"m1":1,...}` with `count` distinct names, then `extra` appended as one more member.
    private static func object(count: Int, extra: String?) -> String {
        var members = (0..<count).map { #""m\#($0)":\#($0)"# }
        if let extra { members.append(#""\#(extra)":true"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test(arguments: [1, 2, 3, 4, 5, 8, 9, 16, 17, 100, 1_000, 5_000])
    func aRepeatedNameIsFoundAfterAnyNumberOfMembers(count: Int) throws {
        for repeated in Set([0, count / 2, count - 1]) {
            let text = Self.object(count: count, extra: "m\(repeated)")
            let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Array(text.utf8)) }
            #expect(error?.reason == .duplicateMemberName)
            #expect(error?.memberName == "m\(repeated)")
            // The offset is the repeated member's opening quote: the last member of the text.
            #expect(error?.offset == text.utf8.count - #""m\#(repeated)":true}"#.utf8.count)
            #expect(error?.description == #"duplicate member name "m\#(repeated)" at byte \#(error?.offset ?? -1)"#)
        }
    }

    @Test(arguments: [0, 7, 8, 100, 5_000])
    func distinctNamesAreNeverDuplicates(count: Int) throws {
        let value = try JSONValue.parse(Array(Self.object(count: count, extra: nil).utf8))
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.count == count)
    }

    /// Names compare as decoded code points: an escape spells the same name, a different normalization
    /// or a prefix does not.
    @Test(arguments: [
        (#"{"a":1,"\u0061":2}"#, true), (#"{"é":1,"e\u0301":2}"#, false), (#"{"ab":1,"a":2,"abc":3}"#, false),
        (#"{"":1,"":2}"#, true), (#"{"a":{"a":1},"b":{"a":2}}"#, false), (#"{"a":{"b":1,"b":2}}"#, true),
    ])
    func namesCompareByDecodedCodePoints(text: String, isDuplicate: Bool) {
        do {
            _ = try JSONValue.parse(Array(text.utf8))
            #expect(!isDuplicate, "\(text) was accepted")
        } catch {
            #expect(isDuplicate && error.reason == .duplicateMemberName, "\(text): \(error.description)")
        }
    }
}
