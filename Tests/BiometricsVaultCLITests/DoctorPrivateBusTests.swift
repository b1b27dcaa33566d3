#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// `doctor` against a real but private system bus (`DBUS_SYSTEM_BUS_ADDRESS`), so the two fprintd
/// reasons the shared bus in CI cannot show are seen for real: nobody owns `net.reactivated.Fprint`
/// ("no fprintd"), and a real fprintd that found no reader ("no device").
@Suite(.onTestThreads, .serialized) struct DoctorPrivateBusTests {
    static let dbusDaemon = "/usr/bin/dbus-daemon"
    static let fprintd = "/usr/libexec/fprintd"
    static let busDaemon = DaemonNeed.executables([dbusDaemon], remedy: "scripts/setup/20-secret-service.sh")
    static let fprintdInstalled = DaemonNeed.executables([fprintd], remedy: "scripts/setup/30-fprintd-polkit.sh")

    /// SIGKILL: a child spawned from a test thread inherits its blocked signals, SIGTERM included.

    /// A sandbox whose system bus is `bus`.
    func sandbox(systemBus bus: PrivateBus) throws -> CLISandbox {
        var sandbox = try CLISandbox()
        sandbox.environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        return sandbox
    }

    func fprintdComponent(_ sandbox: CLISandbox) async throws -> [String: Any] {
        let result = try await sandbox.run(["doctor", "--json", "--store", "file"])
        let components = try #require(result.stdout.jsonObject?["components"] as? [[String: Any]], "\(result.stdout)")
        return try #require(components.first { $0["name"] as? String == "fprintd" })
    }

    @Test(.needs(busDaemon))
    func noFprintdOnTheSystemBusIsReportedInWords() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let sandbox = try sandbox(systemBus: bus)
        defer { sandbox.remove() }

        let fprintd = try await fprintdComponent(sandbox)
        #expect(fprintd["isUsable"] as? Bool == false)
        #expect(fprintd["errorCode"] as? String == "biometryNotAvailable")
        let detail = fprintd["detail"] as? String ?? ""
        #expect(detail.contains("fprintd is not running on the system bus"), "\(detail)")
        // The bus itself answered: nobody owns the name (not a failed connection).
        #expect(detail.contains("org.freedesktop.DBus.Error.ServiceUnknown"), "\(detail)")
    }

    @Test(.needs(busDaemon, fprintdInstalled))
    func fprintdWithoutAReaderIsReportedAsNoDevice() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let sandbox = try sandbox(systemBus: bus)
        defer { sandbox.remove() }

        // A real fprintd on the private bus, without libfprint's virtual sensor: it finds no reader.
        var environment = sandbox.environment
        for name in environment.keys where name.hasPrefix("FP_VIRTUAL") { environment[name] = nil }
        let daemon = try await ChildProcess.start(Self.fprintd, ["-t"], environment: environment, replacing: true)
        defer { daemon.signal(SIGKILL) }

        // fprintd takes its bus name a moment after start; until then the reason is "no fprintd".
        var detail = ""
        for _ in 0..<100 {
            detail = try await fprintdComponent(sandbox)["detail"] as? String ?? ""
            if !detail.contains("is not running") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(detail.contains("fprintd has no fingerprint reader"), "\(detail)")
        #expect(detail.contains("net.reactivated.Fprint.Error.NoSuchDevice"), "the D-Bus cause is kept: \(detail)")
    }
}
#endif
