import BiometricsVaultFileStore
import BiometricsVaultTPM

/// How the platform default opens the file store: with the key source its key file records, so a store
/// sealed by `key seal --tpm` or wrapped by `key passphrase` just works in every later command.
enum FileStoreKeySource {
    /// The recorded source. A PIN is asked on the terminal when the TPM is about to be used; a passphrase
    /// at once (it is needed to read anything).
    ///
    /// - Throws: `storeLocked` for a passphrase store without a terminal to ask on (or the question
    ///   cancelled); what reading the key file's header throws.
    static func recorded(interaction: PlatformInteraction = .terminal) throws -> EncryptedFileStore.KeySource {
        switch try EncryptedFileStore.keyProtection() {
        case nil, .keyFile:
            return .keyFile
        case .passphrase:
            guard let passphrase = interaction.readStoreSecret(.passphrase, "Passphrase for the file store: ") else {
                throw VaultError(.storeLocked, underlying: .message("the file store is protected by a passphrase and none was entered (no terminal, or cancelled; the CLI reads it from stdin with --passphrase-stdin)"))
            }
            return .passphrase(passphrase)
        case .sealed(_, let usesPIN):
            guard usesPIN else { return .sealed(TPMSealer(tpm: interaction.tpm)) }
            return .sealed(
                TPMSealer(
                    tpm: interaction.tpm,
                    pin: .ask {
                        guard let pin = interaction.readStoreSecret(.tpmPIN, "TPM PIN for the file store: ") else {
                            throw VaultError(.storeLocked, underlying: .message("the file store's key is sealed by the TPM with a PIN and none was entered (no terminal, or cancelled; the CLI reads it from stdin with --pin-stdin)"))
                        }
                        return pin
                    }))
        }
    }

    /// `doctor`'s line for a store whose key is not a plain key file, without asking for or unsealing
    /// anything; `nil` for a key-file store (probed by opening it).
    static func describeWithoutOpening(tpm: TPMConfiguration) -> PlatformComponent? {
        let protection: StoredKeyProtection?
        do {
            protection = try EncryptedFileStore.keyProtection()
        } catch {
            return .unusable(.store, "file", UnopenedStore.vaultError(error))
        }
        switch protection {
        case nil, .keyFile:
            return nil
        case .passphrase:
            return .usable(.store, "file", "encrypted files in \(FileStoreAdapter.location), key wrapped by a passphrase")
        case .sealed(_, let usesPIN):
            let sealing = usesPIN ? "sealed by the TPM with a PIN" : "sealed by the TPM"
            do {
                _ = try TPMStatus.read(tpm)
                return .usable(.store, "file", "encrypted files in \(FileStoreAdapter.location), key \(sealing)")
            } catch {
                return .unusable(.store, "file", UnopenedStore.vaultError(error))
            }
        }
    }
}
