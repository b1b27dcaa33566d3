import BiometricsVault
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The vault stores the CLI's credentials as their exact JSON text (JSONValue.swift says why).
extension JSONValue: JSONTextCredentials {
    func jsonTextForStorage() throws -> Data { Data(jsonText.utf8) }

    /// Reads stored JSON text: this version's compact text, and the sorted JSONEncoder output of earlier
    /// versions (both valid JSON, so both parse to what they say).
    init(storedJSONText: Data) throws {
        self = try JSONValue.parse(storedJSONText, source: "the stored item")
    }
}

/// `Codable` only because `Vault` requires it: the vault uses the exact text above instead. Going through
/// an encoder would turn numbers into Double or Int64, so both directions refuse rather than alter
/// credentials silently.
extension JSONValue: Codable {
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "JSONValue is read from exact JSON text only"))
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            "JSONValue", .init(codingPath: encoder.codingPath, debugDescription: "JSONValue is stored as exact JSON text only"))
    }
}
