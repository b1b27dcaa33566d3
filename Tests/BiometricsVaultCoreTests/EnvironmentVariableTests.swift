@testable import BiometricsVaultCore
import Foundation
import Testing

/// `EnvironmentVariable` answers as `ProcessInfo.environment` does, for the start-up paths that read one
/// variable with `getenv` (the store directories, the TPM's TCTI, the no-session-bus explanation). The
/// test reads the environment it was given and never changes it: tests run in parallel, and `setenv`
/// beside another thread's `getenv` is unsafe.
@Suite struct EnvironmentVariableTests {
    @Test(arguments: ["PATH", "HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS", "BV_UNSET_\(UUID().uuidString)"])
    func valueAndIsSetAgreeWithProcessInfo(name: String) {
        let expected = ProcessInfo.processInfo.environment[name]
        #expect(EnvironmentVariable.value(name) == expected)
        #expect(EnvironmentVariable.isSet(name) == (expected.map { !$0.isEmpty } ?? false))
    }
}
