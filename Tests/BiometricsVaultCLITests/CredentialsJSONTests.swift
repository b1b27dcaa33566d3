@testable import biometrics_vault
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
