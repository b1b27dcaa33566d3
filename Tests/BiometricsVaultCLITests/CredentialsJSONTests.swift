@testable import biometrics_vault
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The CLI's JSON value in process: what earlier versions stored still reads, and reports print as JSON.
@Suite struct CredentialsJSONTests {
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

    @Test func reportsAreCompactJSONWithEscapedStrings() {
        let report: JSONValue = .object([
            "b": .string("quote\" back\\ nl\n \u{1} \u{2028}"), "a": .integer(-5), "c": .array([.bool(true), .null]),
        ])
        #expect(report.jsonText == #"{"a":-5,"b":"quote\" back\\ nl\n \u0001 \u2028","c":[true,null]}"#)
        let reparsed = try? JSONValue.parse(Data(report.jsonText.utf8), source: "test")
        #expect(reparsed == report)
        #expect(reparsed?.member(named: "b")?.rawText == "quote\" back\\ nl\n \u{1} \u{2028}")
    }

    @Test func codableIsRefusedRatherThanLossy() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(JSONValue.integer(1)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data("1".utf8)) }
    }
}

/// The duplicate-member check (``MemberNames``, an open-addressing table over the names' bytes): it must
/// find a repeated name wherever it is, across the table's growth, and never call distinct names equal.
@Suite struct DuplicateMemberNameTests {
    /// `{"m0":0,"m1":1,...}` with `count` distinct names, then `extra` appended as one more member.
    private static func object(count: Int, extra: String?) -> String {
        var members = (0..<count).map { #""m\#($0)":\#($0)"# }
        if let extra { members.append(#""\#(extra)":true"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    private static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }

    /// The table starts with 8 slots and doubles at half full: counts on both sides of each growth.
    @Test(arguments: [1, 2, 3, 4, 5, 8, 9, 16, 17, 100, 1_000, 5_000])
    func aRepeatedNameIsFoundAfterAnyNumberOfMembers(count: Int) throws {
        for repeated in Set([0, count / 2, count - 1]) {
            let text = Self.object(count: count, extra: "m\(repeated)")
            let error = #expect(throws: JSONSyntaxError.self) { try Self.parse(text) }
            #expect(error?.reason == .duplicateMemberName)
            #expect(error?.memberName == "m\(repeated)")
            // The offset is the repeated member's opening quote: the last member of the text.
            #expect(error?.offset == text.utf8.count - #""m\#(repeated)":true}"#.utf8.count)
        }
    }

    @Test(arguments: [0, 7, 8, 100, 5_000])
    func distinctNamesAreNeverDuplicates(count: Int) throws {
        let value = try Self.parse(Self.object(count: count, extra: nil))
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
            _ = try Self.parse(text)
            #expect(!isDuplicate, "\(text) was accepted")
        } catch {
            #expect(isDuplicate && error.reason == .duplicateMemberName, "\(text): \(error.description)")
        }
    }
}
