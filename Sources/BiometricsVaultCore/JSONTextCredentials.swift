#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials that are JSON text already and supply their own exact bytes.
///
/// The vault normally stores credentials as `JSONEncoder` output and reads them back with `JSONDecoder`.
/// That round trip is exact for ordinary `Codable` types, but not for a type that holds arbitrary JSON: a
/// number becomes a `Double` (losing digits), one of two duplicate members disappears, the member order
/// changes. A type that conforms to this protocol bypasses both coders: the vault stores the bytes that
/// ``jsonTextForStorage()`` returns, unchanged, and gives the stored bytes to ``init(storedJSONText:)``.
///
/// # Implementation requirements
///
/// 1. **Valid JSON.** ``jsonTextForStorage()`` returns one complete JSON text (RFC 8259) in UTF-8. Plain
///    items are read by other tools (`secret-tool`, python `keyring`) as JSON.
/// 2. **Round trip.** `init(storedJSONText:)` accepts every byte sequence `jsonTextForStorage()` returns and
///    gives an equal value, whose `jsonTextForStorage()` returns the same bytes again.
/// 3. **Earlier items.** `init(storedJSONText:)` also accepts what `JSONEncoder` wrote for the type before it
///    conformed (items stored by an earlier version), or the conformance makes them unreadable.
/// 4. **Errors.** Throw from `jsonTextForStorage()` to refuse a value (the vault reports `encodingFailed`)
///    and from `init(storedJSONText:)` for bytes that are not this type's JSON (`corruptedItem`). A thrown
///    error must not contain the bytes: they are the secret.
///
/// The vault's size limit (``VaultLimits/maximumCredentialsSize``) applies to the returned bytes, and the
/// `Codable` conformance is not used for storage.
public protocol JSONTextCredentials: Codable, Sendable {
    /// The JSON text to store, byte for byte.
    func jsonTextForStorage() throws -> Data
    /// The credentials read back from `storedJSONText`, the bytes a store returned.
    init(storedJSONText: Data) throws
}
