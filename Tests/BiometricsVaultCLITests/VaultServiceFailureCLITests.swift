#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// `auto` and a vault service that is installed but does not start: the service may hold the items, so
/// every command fails saying so (exit 6), and nothing is written to another store. A private bus stands
/// in for the system bus, with an activation file whose program fails at once.
@Suite(.onTestThreads) struct VaultServiceFailureCLITests {
    @Test func anInstalledServiceThatFailsIsReportedNeverSwitchedFrom() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let services = sandbox.root.appendingPathComponent("system-services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try """
            [D-BUS Service]
            Name=io.github.biometricsvault.Vault1
            Exec=/bin/false
            """.write(to: services.appendingPathComponent("io.github.biometricsvault.Vault1.service"), atomically: true, encoding: .utf8)
        let bus = try await PrivateBus(serviceDirectory: services.path)
        defer { bus.stop() }
        var failing = sandbox
        failing.environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address

        let stored = try await failing.run(["store", "kept-out"], stdin: #"{"token":"nowhere-else"}"#)
        #expect(stored.status == 6, "\(stored.stdout)\(stored.stderr)")
        #expect(stored.stderr.contains("does not switch stores"), "\(stored.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeDirectory.path), "the item went to the file store")
        for command in [["show", "kept-out"], ["status", "kept-out"], ["list"], ["reset", "kept-out"], ["exec", "kept-out", "--env", "T=token", "--", "/bin/true"]] {
            let failed = try await failing.run(command)
            #expect(failed.status == 6 && failed.stderr.contains("does not switch stores"), "\(command): \(failed.stdout)\(failed.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeDirectory.path), "a command used the file store")
        let doctor = try await failing.run(["doctor"])
        #expect(doctor.stdout.contains("service        unusable"), "\(doctor.stdout)")
    }
}
#endif
