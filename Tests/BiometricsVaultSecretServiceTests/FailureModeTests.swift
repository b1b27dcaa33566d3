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
}
#endif
