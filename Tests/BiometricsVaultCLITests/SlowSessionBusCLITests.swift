#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// `--store auto` against private session buses (never the test run's shared one, which other tests use):
/// a bus that is slow (SIGSTOPped dbus-daemon, as a busy single-threaded one under load) is waited for up to
/// the store's timeout, one that stays silent is `storeUnavailable` and never a switch to the file store;
/// only a Secret Service that is not there at all makes `auto` use the file store. The absent case of a
/// socket path with nothing behind it (ENOENT) is every `CLISandbox`'s default (FileStoreVerbTests).
@Suite(.onTestThreads) struct SlowSessionBusCLITests {
    static let busDaemon = DaemonNeed.executables(["/usr/bin/dbus-daemon"], remedy: "scripts/setup/20-secret-service.sh")
    static let privateKeyring = DaemonNeed.executables(
        ["/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/gdbus"], remedy: "scripts/setup/20-secret-service.sh")

    let service = "bv-slow-bus-\(UUID().uuidString.prefix(8))"

    func storeAPI(_ sandbox: CLISandbox) async throws -> CLIProcess {
        try await sandbox.start(["store", "api", "--service", service, "--authenticator", "none"], stdin: #"{"token":"t"}"#)
    }

    /// What the file store's directory holds (nothing when it does not exist).
    func fileStoreEntries(_ sandbox: CLISandbox) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: sandbox.storeDirectory.path)) ?? []
    }

    func doctorStores(_ sandbox: CLISandbox) async throws -> [String: [String: Any]] {
        let doctor = try await sandbox.run(["doctor", "--json"])
        let components = try #require(doctor.stdout.jsonObject?["components"] as? [[String: Any]], "\(doctor.stdout)\(doctor.stderr)")
        var stores: [String: [String: Any]] = [:]
        for component in components where component["role"] as? String == "store" {
            stores[component["name"] as? String ?? ""] = component
        }
        return stores
    }

    @Test("a session bus that answers after 1.5 s (stopped, then continued) gets the item, not the file store",
          .needs(privateKeyring))
    func aSlowBusIsWaitedFor() async throws {
        let keyring = try await PrivateKeyring()
        var sandbox = try CLISandbox()
        defer { sandbox.remove() }
        sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.address

        keyring.bus.send(SIGSTOP)
        defer { keyring.bus.send(SIGCONT) }
        let started = try await storeAPI(sandbox)
        try await Task.sleep(for: .microseconds(1_500_000))
        keyring.bus.send(SIGCONT)
        let stored = try await started.result()

        #expect(stored.status == Exit.ok, "\(stored.stderr)")
        #expect(stored.stderr.isEmpty, "no fallback notice: \(stored.stderr)")
        let shown = try await sandbox.run(["show", "api", "--service", service, "--store", "secret-service", "--authenticator", "none", "--field", "token"])
        #expect(shown.stdout == "t\n", "the item is in the Secret Service: \(shown.stderr)")
        #expect(fileStoreEntries(sandbox).isEmpty, "nothing went to the file store")
    }

    /// How the CLI finds the session bus: GLib takes `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
    enum BusLocation: String, CaseIterable, CustomTestStringConvertible {
        case addressVariable
        case runtimeDirectory
        var testDescription: String { rawValue }
    }

    @Test("a session bus silent for longer than the timeout is storeUnavailable under auto; the file store is untouched",
          .needs(busDaemon), arguments: BusLocation.allCases)
    func aSilentBusIsAnErrorNotAFallback(_ location: BusLocation) async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        var sandbox = try CLISandbox()
        defer { sandbox.remove() }
        switch location {
        case .addressVariable:
            sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        case .runtimeDirectory:
            let socket = try #require(bus.address.split(separator: ",").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
            let runtime = sandbox.root.appendingPathComponent("runtime")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: runtime.appendingPathComponent("bus").path, withDestinationPath: socket)
            sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            sandbox.environment["XDG_RUNTIME_DIR"] = runtime.path
        }
        bus.send(SIGSTOP)

        let stored = try await storeAPI(sandbox).result()
        #expect(stored.status == Exit.storeUnavailable, "\(stored.stderr)")
        #expect(stored.stderr.contains("did not answer within 5000 ms"), "\(stored.stderr)")
        #expect(stored.stderr.contains("--store file"), "\(stored.stderr)")
        #expect(fileStoreEntries(sandbox).isEmpty, "nothing went to the file store")

        // doctor (1 s probe, no prompt) says the same: auto picks the Secret Service, which does not answer.
        let stores = try await doctorStores(sandbox)
        #expect(stores["secret-service"]?["isSelected"] as? Bool == true)
        #expect(stores["secret-service"]?["isUsable"] as? Bool == false)
        #expect(stores["secret-service"]?["errorCode"] as? String == "storeUnavailable")
        #expect(stores["file"]?["isSelected"] as? Bool == false)
        #expect(fileStoreEntries(sandbox).isEmpty)
    }

    enum Absence: String, CaseIterable, CustomTestStringConvertible {
        /// DBUS_SESSION_BUS_ADDRESS unset, and no `$XDG_RUNTIME_DIR/bus`: GLib can only try X11 autolaunch.
        case noAddress
        /// A socket left by a bus that is gone: ECONNREFUSED.
        case refusedSocket
        /// A bus on which nobody owns or can activate `org.freedesktop.secrets`: ServiceUnknown.
        case noProvider
        var testDescription: String { rawValue }
    }

    @Test("no Secret Service at all: auto uses the file store, says so, and doctor picks it",
          .needs(busDaemon), arguments: Absence.allCases)
    func anAbsentSecretServiceFallsBackToTheFileStore(_ absence: Absence) async throws {
        var sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let bus = try await PrivateBus()
        defer { bus.stop() }
        switch absence {
        case .noAddress:
            sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            sandbox.environment["XDG_RUNTIME_DIR"] = sandbox.root.path
        case .refusedSocket:
            sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            bus.stop()  // SIGKILL: the socket file stays, nobody listens on it
        case .noProvider:
            sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        }

        let stored = try await storeAPI(sandbox).result()
        #expect(stored.status == Exit.ok, "\(stored.stderr)")
        #expect(stored.stderr.contains("there is no Secret Service on the session bus"), "\(stored.stderr)")
        #expect(!fileStoreEntries(sandbox).isEmpty, "the item went to the file store")
        let shown = try await sandbox.run(["show", "api", "--service", service, "--authenticator", "none", "--field", "token"])
        #expect(shown.stdout == "t\n", "\(shown.stderr)")

        let stores = try await doctorStores(sandbox)
        #expect(stores["secret-service"]?["isSelected"] as? Bool == false)
        #expect(stores["file"]?["isSelected"] as? Bool == true)
    }
}
#endif
