@testable import biometrics_vault
import BiometricsVaultCore
import Testing

/// The one table from library error codes to exit statuses covers every code.
@Suite struct ExitCodeTableTests {
    @Test(arguments: VaultError.Code.all)
    func everyErrorCodeHasAnExitStatus(code: VaultError.Code) {
        #expect(ExitStatus.forCode[code] != nil)
        #expect(ExitStatus.forCode[code] != .ok)
    }

    @Test func exitStatusesAreDistinctAndStable() {
        #expect(Set(ExitStatus.allCases.map(\.rawValue)).count == ExitStatus.allCases.count)
        #expect(ExitStatus.forCode[.itemNotFound] == .notFound)
        #expect(ExitStatus.forCode[.userCancel] == .cancelled)
        #expect(ExitStatus.forCode[.authenticationFailed] == .authenticationFailed)
        #expect(ExitStatus.forCode[.biometryLockout] == .lockedOut)
        #expect(ExitStatus.forCode[.storeUnavailable] == .storeUnavailable)
        #expect(ExitStatus.forCode[.storeLocked] == .storeLocked)
        #expect(ExitStatus.forCode[.invalidKey] == .badInput)
    }
}
