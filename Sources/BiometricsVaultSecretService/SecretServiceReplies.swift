#if os(Linux)
// What the store reads out of the Secret Service's replies, apart from the calls that bring them
// (SecretServiceCalls.swift). The provider is another program: GDBus checks that a reply has the type
// signature asked for, but not what it holds, nor the type of a value inside a `v`. Separate from the
// calls so that Fuzz/FuzzSecretServiceReply reaches them without a bus.
import BiometricsVaultCore
import BiometricsVaultDBus

package enum SecretServiceReplies {
    /// SearchItems' `(aoao)`: the unlocked and the locked matches.
    package static func searchResult(_ reply: DBusValue) -> SearchResult {
        SearchResult(unlocked: reply[0].strings ?? [], locked: reply[1].strings ?? [])
    }

    /// GetSecrets' `(a{o(oayays)})`: the IV and the encrypted value of the first entry for `path`, or `nil`
    /// when the reply has none (the item vanished). An entry for another session than `sessionPath` is
    /// refused: its secret is not encrypted with this session's key. An empty value is returned as is (the
    /// caller tells a locked item from a broken provider).
    package static func encryptedSecret(
        in reply: DBusValue, for path: String, sessionPath: String
    ) throws(VaultError) -> (parameters: [UInt8], value: [UInt8])? {
        for entry in reply[0].children {
            guard entry[0].string == path else { continue }
            let secret = entry[1]
            guard secret[0].string == sessionPath else {
                throw SecretServiceClient.unexpected("GetSecrets answered for another session")
            }
            return (secret[1].bytes ?? [], secret[2].bytes ?? [])
        }
        return nil
    }

    /// The `Attributes` property's value, unboxed: an `a{ss}` as a dictionary, where the last of a name
    /// given twice counts; a value of any other type is no attributes.
    package static func attributes(_ value: DBusValue) -> SecretAttributes {
        var result: SecretAttributes = [:]
        for (key, item) in value.stringPairs ?? [] { result[key] = item }
        return result
    }

    /// OpenSession's `(vo)`: the provider's public key (an `ay` inside the `v`) and the session's path.
    package static func openedSession(_ reply: DBusValue) throws(VaultError) -> (serverPublicKey: [UInt8], sessionPath: String) {
        guard let output = reply[0].unboxed.bytes, let sessionPath = reply[1].string else {
            throw SecretServiceClient.unexpected("OpenSession returned no session key")
        }
        return (output, sessionPath)
    }
}
#endif
