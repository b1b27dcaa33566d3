import BiometricsVaultCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The vault stores a JSON value as its exact JSON text (JSONValue.swift says why).
extension JSONValue: JSONTextCredentials {
    package func jsonTextForStorage() throws -> Data { Data(jsonText.utf8) }

    /// Reads stored JSON text: the compact text above, and the sorted JSONEncoder output of earlier
    /// versions of the CLI (both valid JSON, so both parse to what they say). Throws ``JSONSyntaxError``,
    /// which the vault reports as `corruptedItem`.
    package init(storedJSONText: Data) throws {
        self = try JSONValue.parse([UInt8](storedJSONText))
    }
}

/// `Codable` only because `Vault` requires it: the vault uses the exact text above instead. Going through
/// an encoder would turn numbers into Double or Int64, so both directions refuse rather than alter
/// credentials silently.
extension JSONValue: Codable {
    package init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "JSONValue is read from exact JSON text only"))
    }

    package func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            "JSONValue", .init(codingPath: encoder.codingPath, debugDescription: "JSONValue is stored as exact JSON text only"))
    }
}
