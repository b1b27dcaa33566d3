import BiometricsVaultCore

/// The code of the `VaultError` that `body` throws; `nil` when it throws nothing or another error.
package func code(of body: () async throws -> Void) async -> VaultError.Code? {
    do {
        try await body()
        return nil
    } catch let error as VaultError {
        return error.code
    } catch {
        return nil
    }
}
