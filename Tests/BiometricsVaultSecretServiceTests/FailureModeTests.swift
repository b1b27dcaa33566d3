#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import Foundation
import Testing

/// Locked keyring, missing daemon, restarted daemon. Each test has its own private bus + gnome-keyring,
/// so the shared session keyring of the other (parallel) tests is never locked or restarted; the store
/// runs in a `SecretServiceTestDriver` process on that bus (libsecret always uses the process's session
/// bus), which keeps one store and one connection across the lock / restart.
@Suite(.enabled(if: Daemon.runPrivateKeyringTests, "needs dbus-daemon and gnome-keyring-daemon"))
struct SecretServiceFailureModeTests {
    /// The answer without the trailing elapsed time (`init` and `probe` report one).
    func status(_ answer: String) -> String {
        answer.split(separator: " ").dropLast().joined(separator: " ")
    }

    @Test func lockedCollectionIsStoreLockedAndTheItemSurvivesUnlock() throws {
        let keyring = try PrivateKeyring()
        let driver = try StoreDriver(environment: keyring.environment)
        #expect(status(try driver.send("init")) == "ok")
        #expect(try driver.send("write bv-test.locked alice plain {\"a\":1}") == "ok")
        #expect(try driver.send("write bv-test.locked bob protected {\"b\":2}") == "ok")
        #expect(status(try driver.send("probe")) == "available")

        try keyring.lock()

        #expect(status(try driver.send("probe")) == "locked")
        #expect(try driver.send("read bv-test.locked alice") == "error storeLocked")
        #expect(try driver.send("read bv-test.locked bob") == "error storeLocked")
        #expect(try driver.send("read bv-test.locked nobody") == "error storeLocked")
        #expect(try driver.send("keys bv-test.locked") == "error storeLocked")
        #expect(try driver.send("write bv-test.locked alice plain {}") == "error storeLocked")
        #expect(try driver.send("delete bv-test.locked alice") == "error storeLocked")
        #expect(try driver.send("delete bv-test.locked nobody") == "error storeLocked")

        // Unlock: gnome-keyring restarted with the right password; the same store reconnects by itself.
        try keyring.startKeyring(password: PrivateKeyring.password)
        #expect(try driver.send("read bv-test.locked alice") == "item plain {\"a\":1}")
        #expect(try driver.send("read bv-test.locked bob") == "item protected {\"b\":2}")
        #expect(try driver.send("read bv-test.locked nobody") == "none")
        #expect(try driver.send("keys bv-test.locked") == "keys alice,bob")
    }

    @Test func keyringLoadedLockedFromDiskIsStoreLocked() throws {
        let keyring = try PrivateKeyring()
        do {
            let writer = try StoreDriver(environment: keyring.environment)
            #expect(status(try writer.send("init")) == "ok")
            #expect(try writer.send("write bv-test.disk alice plain {\"a\":1}") == "ok")
            #expect(try writer.send("write bv-test.disk bob protected {\"b\":2}") == "ok")
        }
        // A wrong login password: the daemon loads login.keyring from disk and it stays locked.
        try keyring.startKeyring(password: "not-the-password")
        let driver = try StoreDriver(environment: keyring.environment)
        #expect(status(try driver.send("init")) == "ok")
        #expect(status(try driver.send("probe")) == "locked")
        #expect(try driver.send("read bv-test.disk alice") == "error storeLocked")
        #expect(try driver.send("read bv-test.disk bob") == "error storeLocked")
        #expect(try driver.send("keys bv-test.disk") == "error storeLocked")

        try keyring.startKeyring(password: PrivateKeyring.password)
        #expect(try driver.send("read bv-test.disk alice") == "item plain {\"a\":1}")
        #expect(try driver.send("read bv-test.disk bob") == "item protected {\"b\":2}")
    }

    @Test func daemonRestartedBetweenCallsNextCallWorks() throws {
        let keyring = try PrivateKeyring()
        let driver = try StoreDriver(environment: keyring.environment)
        #expect(status(try driver.send("init")) == "ok")
        #expect(try driver.send("write bv-test.restart alice plain {\"v\":1}") == "ok")

        // Replaced in place (--replace), no gap.
        try keyring.startKeyring(password: PrivateKeyring.password)
        #expect(try driver.send("read bv-test.restart alice") == "item plain {\"v\":1}")
        #expect(try driver.send("write bv-test.restart alice plain {\"v\":2}") == "ok")

        // Stopped, one failing call in between, then started again.
        try keyring.stopKeyring()
        #expect(try driver.send("read bv-test.restart alice") == "error storeUnavailable")
        try keyring.startKeyring(password: PrivateKeyring.password)
        #expect(try driver.send("read bv-test.restart alice") == "item plain {\"v\":2}")
        #expect(try driver.send("write bv-test.restart alice protected {\"v\":3}") == "ok")
        #expect(try driver.send("read bv-test.restart alice") == "item protected {\"v\":3}")
    }

    @Test func noBusIsATypedErrorQuickly() throws {
        let dead = "unix:path=/nonexistent/bv-dead-bus-\(UUID().uuidString.prefix(8))"
        let driver = try StoreDriver(environment: ["DBUS_SESSION_BUS_ADDRESS": dead, "DISPLAY": ""])
        let initAnswer = try driver.send("init")
        #expect(status(initAnswer) == "error storeUnavailable")
        let probeAnswer = try driver.send("probe")
        #expect(status(probeAnswer) == "unavailable storeUnavailable")
        #expect(try driver.send("read a b") == "error noStore")
        print("no bus: init -> \(initAnswer); probe -> \(probeAnswer)")
    }

    @Test func busWithoutProviderIsATypedErrorQuickly() throws {
        let bus = try PrivateKeyring(withKeyring: false)
        let driver = try StoreDriver(environment: bus.environment)
        let initAnswer = try driver.send("init")
        #expect(status(initAnswer) == "error storeUnavailable")
        let probeAnswer = try driver.send("probe")
        #expect(status(probeAnswer) == "unavailable storeUnavailable")
        print("bus without provider: init -> \(initAnswer); probe -> \(probeAnswer)")
    }

    @Test func hungProviderTimesOutAsStoreUnavailable() throws {
        let keyring = try PrivateKeyring()
        let driver = try StoreDriver(environment: keyring.environment)
        #expect(status(try driver.send("init")) == "ok")  // the driver's store has a 1 s timeout
        #expect(try driver.send("write bv-test.hung alice plain {\"v\":1}") == "ok")
        try keyring.signalKeyring("STOP")
        #expect(try driver.send("read bv-test.hung alice") == "error storeUnavailable")
        #expect(try driver.send("write bv-test.hung alice plain {}") == "error storeUnavailable")
        try keyring.signalKeyring("CONT")
        #expect(try driver.send("read bv-test.hung alice") == "item plain {\"v\":1}")
    }

    @Test func providerGoneAfterConnectIsStoreUnavailable() throws {
        let keyring = try PrivateKeyring()
        let driver = try StoreDriver(environment: keyring.environment)
        #expect(status(try driver.send("init")) == "ok")
        try keyring.stopKeyring()
        #expect(try driver.send("read bv-test.gone alice") == "error storeUnavailable")
        #expect(try driver.send("write bv-test.gone alice plain {}") == "error storeUnavailable")
        #expect(try driver.send("keys bv-test.gone") == "error storeUnavailable")
        #expect(try driver.send("delete bv-test.gone alice") == "error storeUnavailable")
    }

    /// A provider that answers `Item.Delete` with a prompt (one that confirms deletions, as KeePassXC can
    /// be set to) gets no prompt shown: the delete is `storeLocked` and the prompt is never called. A fake
    /// provider (python with jeepney on a private bus): gnome-keyring never asks to confirm a deletion.
    @Test func aDeletionThatAsksForAPromptIsStoreLockedAndShowsNone() throws {
        let bus = try PrivateKeyring(withKeyring: false)
        let provider = try FakeProvider(script: Self.confirmingProvider, on: bus)
        let driver = try StoreDriver(environment: bus.environment)
        #expect(status(try driver.send("init")) == "ok")
        #expect(try driver.send("delete bv-test.confirm alice") == "error storeLocked")
        let calls = provider.stopAndReadCalls()
        #expect(calls.contains("Delete /org/freedesktop/secrets/collection/login/1"), "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("Prompt") }, "\(calls)")
    }

    /// Owns org.freedesktop.secrets: an encrypted session (its public key is the group's generator, 2:
    /// no secret crosses here), one unlocked item for every search, and a prompt for every Delete. Prints
    /// each call's member, and the path of each Delete.
    static let confirmingProvider = """
        from jeepney import HeaderFields, MessageType, new_error, new_method_return
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        conn = open_dbus_connection(bus="SESSION")
        conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets"))
        print("ready", flush=True)
        item = "/org/freedesktop/secrets/collection/login/1"
        while True:
            msg = conn.receive()
            if msg.header.message_type != MessageType.method_call:
                continue
            member = msg.header.fields.get(HeaderFields.member)
            path = msg.header.fields.get(HeaderFields.path)
            if member == "Get":
                print(member, flush=True)
                conn.send(new_method_return(msg, "v", (("ao", []),)))
            elif member == "OpenSession":
                print(member, flush=True)
                key = bytes(127) + bytes([2])
                conn.send(new_method_return(msg, "vo", (("ay", key), "/org/freedesktop/secrets/session/s1")))
            elif member == "SearchItems":
                print(member, flush=True)
                conn.send(new_method_return(msg, "aoao", ([item], [])))
            elif member == "Delete":
                print(member, path, flush=True)
                conn.send(new_method_return(msg, "o", ("/org/freedesktop/secrets/prompt/p1",)))
            else:
                print(member, path, flush=True)
                conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (str(member),)))
        """
}
#endif
