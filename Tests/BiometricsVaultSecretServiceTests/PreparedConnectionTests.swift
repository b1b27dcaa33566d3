#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Testing

/// `SecretServiceStore.prepareConnection()`: the connection started ahead is the one the store then uses.
/// Each test has a private bus + gnome-keyring and a `SecretServiceTestDriver` process, so the process's one
/// shared connection starts out closed and a `dbus-monitor` sees only that process's calls.
@Suite(.onTestThreads, .needs(Daemon.privateKeyring))
struct PreparedConnectionTests {
    func status(_ answer: String) -> String {
        answer.split(separator: " ").dropLast().joined(separator: " ")
    }

    func elapsedMilliseconds(_ answer: String) -> Int? {
        answer.split(separator: " ").last.flatMap { Int($0.dropLast(2)) }
    }

    /// The store created while the prepared open is in flight waits for it: one bus connection, one
    /// session (a second proxy would mean a second OpenSession and key exchange).
    @Test func theStoreWaitsForThePreparedConnectionInsteadOfOpeningAnother() async throws {
        let keyring = try await PrivateKeyring()
        let monitor = try await BusMonitor(keyring)
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try driver.send("prepared-init")) == "ok")
        await #expect(try driver.send("write bv-test.prepared alice plain {\"a\":1}") == "ok")
        await #expect(try driver.send("read bv-test.prepared alice") == "item plain {\"a\":1}")
        let calls = try await monitor.methodCalls()
        #expect(calls.filter { $0 == "Hello" }.count == 1, "\(calls)")
        #expect(calls.filter { $0 == "OpenSession" }.count == 1, "\(calls)")
    }

    /// A process's first read asks the provider what it needs, on the bus's own connection: `Hello`, the
    /// `Collections` read that gnome-keyring must see before `OpenSession` (SecretServiceCalls.swift, `introduce`),
    /// `OpenSession`, `SearchItems`, `GetSecrets`. libsecret's proxy would add seven set-up calls (match
    /// rules, name owners, StartServiceByName, GetAll) before `OpenSession`.
    @Test func aColdReadMakesFiveCalls() async throws {
        let keyring = try await PrivateKeyring()
        let writer = try await StoreDriver(environment: keyring.environment)
        await #expect(try writer.send("init").hasPrefix("ok"))
        await #expect(try writer.send("write bv-test.cold alice plain {\"a\":1}") == "ok")
        let monitor = try await BusMonitor(keyring)
        let reader = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try reader.send("prepared-init")) == "ok")
        await #expect(try reader.send("read bv-test.cold alice") == "item plain {\"a\":1}")
        let calls = try await monitor.methodCalls()
        #expect(calls == ["Hello", "Get", "OpenSession", "SearchItems", "GetSecrets"], "\(calls)")
    }

    /// No call goes to the default alias's path: gnome-keyring 42 can rewrite it into a path built from
    /// freed memory when a new client connects meanwhile (SecretServiceCalls.swift, `Call.defaultCollection()`).
    /// Writes, and the lock check behind an absent item, find the collection with ReadAlias instead, once
    /// per operation: a conditional write of an absent key needs it for both and asks once.
    @Test func noCallAddressesTheDefaultAlias() async throws {
        let keyring = try await PrivateKeyring()
        let monitor = try await BusMonitor(keyring)
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(try driver.send("init").hasPrefix("ok"))
        await #expect(try driver.send("write bv-test.alias alice plain {\"a\":1}") == "ok")
        await #expect(try driver.send("write bv-test.alias alice plain {\"a\":2}") == "ok")
        await #expect(try driver.send("read bv-test.alias nobody") == "none")
        await #expect(try driver.send("delete bv-test.alias alice") == "ok")
        await #expect(try driver.send("delete bv-test.alias alice") == "ok")
        await #expect(try driver.send("write-new bv-test.alias bob {\"b\":1}") == "ok")
        let capture = try await monitor.capture()
        // One each: the two writes, the read of an absent key, the second delete (nothing found), and the
        // conditional write (its lock check and its CreateItem share one).
        let readAliases = capture.components(separatedBy: "member=ReadAlias").count - 1
        #expect(readAliases == 5, "\(readAliases) ReadAlias calls")
        #expect(capture.contains("member=CreateItem"))
        #expect(!capture.contains("path=/org/freedesktop/secrets/aliases"), "a call went to an alias's path")
    }

    /// With no provider running, the first call starts one (D-Bus activation), as libsecret's proxy
    /// did with StartServiceByName: the private bus here can activate gnome-keyring.
    @Test func theFirstCallStartsAProviderThatIsNotRunning() async throws {
        let bus = try await PrivateKeyring(withKeyring: false, activatable: true)
        await #expect(try bus.keyringPID() == nil)
        let driver = try await StoreDriver(environment: bus.environment)
        await #expect(try driver.send("init").hasPrefix("ok"))
        await #expect(try bus.keyringPID() != nil)
    }

    /// A caller waiting for a prepared open still ends at its own deadline (the driver's store: 1 s; the
    /// prepared connection: 5 s), and the connection, once the provider answers, is used.
    @Test func aWaitingCallerKeepsItsOwnDeadline() async throws {
        let keyring = try await PrivateKeyring()
        let driver = try await StoreDriver(environment: keyring.environment)
        try await keyring.signalKeyring("STOP")
        let answer = try await driver.send("prepared-init")
        try await keyring.signalKeyring("CONT")
        #expect(status(answer) == "error storeUnavailable")
        let elapsed = try #require(elapsedMilliseconds(answer), "\(answer)")
        #expect(elapsed < 4000, "waited \(elapsed) ms: the prepared connection's 5 s, not the caller's 1 s")
        await #expect(status(try driver.send("init")) == "ok")
        await #expect(try driver.send("read bv-test.prepared nobody") == "none")
    }

    /// The prepared open ends at its own deadline too (its timer is armed by the thread that prepared it,
    /// after the connecting thread started): a store created later, with a longer deadline, that waits
    /// for that open gets its failure when the prepared deadline (0.5 s) passes, not at its own (30 s).
    @Test func thePreparedOpenEndsAtItsOwnDeadline() async throws {
        let keyring = try await PrivateKeyring()
        let driver = try await StoreDriver(environment: keyring.environment)
        try await keyring.signalKeyring("STOP")
        await #expect(try driver.send("prepare 500") == "ok")
        try await Task.sleep(for: .microseconds(100_000))  // the connecting thread is the opener by now: the store below waits for it
        let answer = try await driver.send("init 30000")
        try await keyring.signalKeyring("CONT")
        #expect(status(answer) == "error storeUnavailable")
        let elapsed = try #require(elapsedMilliseconds(answer), "\(answer)")
        #expect(elapsed < 4000, "waited \(elapsed) ms: the prepared open did not end at its 0.5 s deadline")
        await #expect(status(try driver.send("init")) == "ok")
    }

    /// Without a provider the prepared open fails, and the store reports that failure as any connect would.
    @Test func withoutAProviderThePreparedFailureIsTheStoresError() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let driver = try await StoreDriver(environment: bus.environment)
        await #expect(status(try driver.send("prepared-init")) == "error storeUnavailable")
        await #expect(status(try driver.send("init")) == "error storeUnavailable")
    }
}
#endif
