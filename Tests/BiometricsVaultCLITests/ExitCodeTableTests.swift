@testable import biometrics_vault
import BiometricsVaultCore
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The one table from library error codes to exit statuses covers every code.
@Suite(.onTestThreads) struct ExitCodeTableTests {
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

/// A bare errno cause is printed in words first: "errno 13" alone tells nobody what is wrong.
@Suite(.onTestThreads) struct ErrorMessageTests {
    @Test(arguments: [(EACCES, "Permission denied"), (ELOOP, "Too many levels of symbolic links"), (ENOSPC, "No space left on device")])
    func errnoCausesAreDescribedInWords(number: Int32, words: String) {
        let (status, code, message) = Console.describe(VaultError(.storeUnavailable, underlying: .errno(number)))
        #expect(status == .storeUnavailable)
        #expect(code == "storeUnavailable")
        #expect(message.contains("\(words) (errno \(number))"), "\(message)")
        #expect(message.hasPrefix("store unavailable"), "\(message)")
    }
}
