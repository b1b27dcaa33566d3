#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Testing

/// Locked keyring, missing daemon, restarted daemon. Each test has its own private bus + gnome-keyring,
/// so the shared session keyring of the other (parallel) tests is never locked or restarted; the store
/// runs in a `SecretServiceTestDriver` process on that bus (libsecret always uses the process's session
/// bus), which keeps one store and one connection across the lock / restart.
@Suite(.onTestThreads, .needs(Daemon.privateKeyring))
struct SecretServiceFailureModeTests {
    /// The answer without the trailing elapsed time (`init` and `probe` report one).
    func status(_ answer: String) -> String {
        answer.split(separator: " ").dropLast().joined(separator: " ")
    }

    @Test func lockedCollectionIsStoreLockedAndTheItemSurvivesUnlock() async throws {
        let keyring = try await PrivateKeyring()
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try driver.send("init 1000 never")) == "ok")
        await #expect(try driver.send("write bv-test.locked alice plain {\"a\":1}") == "ok")
        await #expect(try driver.send("write bv-test.locked bob protected {\"b\":2}") == "ok")
        await #expect(status(try driver.send("probe")) == "available")

        try await keyring.lock()

        await #expect(status(try driver.send("probe")) == "locked")
        await #expect(try driver.send("read bv-test.locked alice") == "error storeLocked")
        await #expect(try driver.send("read bv-test.locked bob") == "error storeLocked")
        await #expect(try driver.send("read bv-test.locked nobody") == "error storeLocked")
        await #expect(try driver.send("keys bv-test.locked") == "error storeLocked")
        await #expect(try driver.send("write bv-test.locked alice plain {}") == "error storeLocked")
        await #expect(try driver.send("delete bv-test.locked alice") == "error storeLocked")
        await #expect(try driver.send("delete bv-test.locked nobody") == "error storeLocked")

        // A store that may prompt asks gnome-keyring to unlock; with no prompter on this bus (no
        // display) gnome-keyring dismisses the prompt at once: userCancel, and nothing is written.
        let prompting = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try prompting.send("init 1000")) == "ok")
        await #expect(try prompting.send("read bv-test.locked alice") == "error userCancel")
        await #expect(try prompting.send("write bv-test.locked alice plain {}") == "error userCancel")

        // Unlock: gnome-keyring restarted with the right password; the same store reconnects by itself.
        try await keyring.startKeyring(password: PrivateKeyring.password)
        await #expect(try driver.send("read bv-test.locked alice") == "item plain {\"a\":1}")
        await #expect(try driver.send("read bv-test.locked bob") == "item protected {\"b\":2}")
        await #expect(try driver.send("read bv-test.locked nobody") == "none")
        await #expect(try driver.send("keys bv-test.locked") == "keys alice,bob")
    }

    @Test func keyringLoadedLockedFromDiskIsStoreLocked() async throws {
        let keyring = try await PrivateKeyring()
        do {
            let writer = try await StoreDriver(environment: keyring.environment)
            await #expect(status(try writer.send("init")) == "ok")
            await #expect(try writer.send("write bv-test.disk alice plain {\"a\":1}") == "ok")
            await #expect(try writer.send("write bv-test.disk bob protected {\"b\":2}") == "ok")
        }
        // A wrong login password: the daemon loads login.keyring from disk and it stays locked.
        try await keyring.startKeyring(password: "not-the-password")
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try driver.send("init 1000 never")) == "ok")
        await #expect(status(try driver.send("probe")) == "locked")
        await #expect(try driver.send("read bv-test.disk alice") == "error storeLocked")
        await #expect(try driver.send("read bv-test.disk bob") == "error storeLocked")
        await #expect(try driver.send("keys bv-test.disk") == "error storeLocked")

        try await keyring.startKeyring(password: PrivateKeyring.password)
        await #expect(try driver.send("read bv-test.disk alice") == "item plain {\"a\":1}")
        await #expect(try driver.send("read bv-test.disk bob") == "item protected {\"b\":2}")
    }

    @Test func daemonRestartedBetweenCallsNextCallWorks() async throws {
        let keyring = try await PrivateKeyring()
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try driver.send("init")) == "ok")
        await #expect(try driver.send("write bv-test.restart alice plain {\"v\":1}") == "ok")

        // Replaced in place (--replace), no gap.
        try await keyring.startKeyring(password: PrivateKeyring.password)
        await #expect(try driver.send("read bv-test.restart alice") == "item plain {\"v\":1}")
        await #expect(try driver.send("write bv-test.restart alice plain {\"v\":2}") == "ok")

        // Stopped, one failing call in between, then started again.
        try await keyring.stopKeyring()
        await #expect(try driver.send("read bv-test.restart alice") == "error storeUnavailable")
        try await keyring.startKeyring(password: PrivateKeyring.password)
        await #expect(try driver.send("read bv-test.restart alice") == "item plain {\"v\":2}")
        await #expect(try driver.send("write bv-test.restart alice protected {\"v\":3}") == "ok")
        await #expect(try driver.send("read bv-test.restart alice") == "item protected {\"v\":3}")
    }

    @Test func noBusIsATypedErrorQuickly() async throws {
        let dead = "unix:path=/nonexistent/bv-dead-bus-\(UUID().uuidString.prefix(8))"
        let driver = try await StoreDriver(environment: ["DBUS_SESSION_BUS_ADDRESS": dead, "DISPLAY": ""])
        let initAnswer = try await driver.send("init")
        #expect(status(initAnswer) == "error storeUnavailable")
        let probeAnswer = try await driver.send("probe")
        #expect(status(probeAnswer) == "unavailable storeUnavailable")
        await #expect(try driver.send("read a b") == "error noStore")
        print("no bus: init -> \(initAnswer); probe -> \(probeAnswer)")
    }

    /// A session bus address where something listens but never answers (a stopped or very busy bus):
    /// `storeUnavailable` at the store's own timeout, not sooner (a busy bus under load takes more than
    /// half a second to answer many clients at once), and not as "no bus" (SlowSessionBusCLITests).
    @Test func aBusThatNeverAnswersIsUnavailableAtTheStoresTimeout() async throws {
        let directory = try await Shell.bash("mktemp -d /tmp/bv-silent-bus.XXXXXX").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = "\(directory)/bus"
        // Listens (so connect() succeeds) and never reads a byte: the authentication never completes.
        let listener = try await Shell.spawn(
            "/usr/bin/python3",
            ["-c", "import socket, sys, time\ns = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(64)\nprint('ready', flush=True)\ntime.sleep(60)", socket])
        defer {
            kill(listener.pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(listener.pid, &status, 0) < 0 && errno == EINTR {}
            close(listener.stdin); close(listener.stdout); close(listener.stderr)
        }
        #expect(try await Shell.readLine(listener.stdout) == "ready")
        let driver = try await StoreDriver(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)", "DISPLAY": ""])
        let answer = try await driver.send("init 1500")
        #expect(status(answer) == "error storeUnavailable")
        let milliseconds = Int(answer.split(separator: " ").last?.dropLast(2) ?? "") ?? .max
        #expect(milliseconds >= 1400 && milliseconds < 4000, "\(answer)")
    }

    /// A provider with no `default` alias (gnome-keyring started with no login keyring: ReadAlias
    /// answers "/") is storeUnavailable with the way out, in the probe (doctor) and on a write.
    @Test func aProviderWithoutDefaultCollectionSaysWhatToDo() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let started = try await Shell.bash(
            "gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1 && gdbus wait --session --timeout 10 org.freedesktop.secrets",
            environment: bus.environment)
        #expect(started.status == 0, "\(started.stderr)")
        guard case .unavailable(let error) = SecretServiceStore.probe(busAddress: bus.address, timeout: .seconds(2)) else {
            Issue.record("a provider without a default collection probed as usable")
            return
        }
        #expect(error.code == .storeUnavailable)
        #expect("\(error.underlying.map { "\($0)" } ?? "")".contains("no default collection"))
        let store = try SecretServiceStore(busAddress: bus.address, timeout: .seconds(2))
        let id = try SecretItemID(service: "bv-test.no-default", key: "k")
        #expect(throws: VaultError.storeUnavailable) {
            try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: "{}")), for: id, authorization: nil)
        }
        #expect(throws: VaultError.storeUnavailable) { try store.read(id, authorization: nil) }
    }

    @Test func busWithoutProviderIsATypedErrorQuickly() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let driver = try await StoreDriver(environment: bus.environment)
        let initAnswer = try await driver.send("init")
        #expect(status(initAnswer) == "error storeUnavailable")
        let probeAnswer = try await driver.send("probe")
        #expect(status(probeAnswer) == "unavailable storeUnavailable")
        print("bus without provider: init -> \(initAnswer); probe -> \(probeAnswer)")
    }

    @Test func hungProviderTimesOutAsStoreUnavailable() async throws {
        let keyring = try await PrivateKeyring()
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try driver.send("init")) == "ok")  // the driver's store has a 1 s timeout
        await #expect(try driver.send("write bv-test.hung alice plain {\"v\":1}") == "ok")
        try await keyring.signalKeyring("STOP")
        await #expect(try driver.send("read bv-test.hung alice") == "error storeUnavailable")
        await #expect(try driver.send("write bv-test.hung alice plain {}") == "error storeUnavailable")
        try await keyring.signalKeyring("CONT")
        await #expect(try driver.send("read bv-test.hung alice") == "item plain {\"v\":1}")
    }

    @Test func providerGoneAfterConnectIsStoreUnavailable() async throws {
        let keyring = try await PrivateKeyring()
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(status(try driver.send("init")) == "ok")
        try await keyring.stopKeyring()
        await #expect(try driver.send("read bv-test.gone alice") == "error storeUnavailable")
        await #expect(try driver.send("write bv-test.gone alice plain {}") == "error storeUnavailable")
        await #expect(try driver.send("keys bv-test.gone") == "error storeUnavailable")
        await #expect(try driver.send("delete bv-test.gone alice") == "error storeUnavailable")
    }

    /// A provider that answers `Item.Delete` with a prompt (one that confirms deletions, as KeePassXC can
    /// be set to). A store that must not prompt never calls `Prompt()`: `storeLocked`. A fake provider
    /// (python with jeepney on a private bus), for the answers no real provider gives on demand: a prompt
    /// the user dismisses, and one nobody ever answers.
    @Test func aDeletionThatAsksForAPromptIsStoreLockedWithoutPromptingWhenPromptsAreNotAllowed() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.confirmingProvider(answer: "dismiss"), on: bus)
        let driver = try await StoreDriver(environment: bus.environment)
        await #expect(status(try driver.send("init 1000 never")) == "ok")
        await #expect(try driver.send("delete bv-test.confirm alice") == "error storeLocked")
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("Delete /org/freedesktop/secrets/collection/login/1"), "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("Prompt") }, "\(calls)")
    }

    /// The prompt is run per the specification (`Prompt("")` after subscribing to `Completed`); a
    /// dismissed prompt is `userCancel`, and nothing else is called.
    @Test func aDismissedPromptIsUserCancel() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.confirmingProvider(answer: "dismiss"), on: bus)
        let driver = try await StoreDriver(environment: bus.environment)
        await #expect(status(try driver.send("init 1000")) == "ok")
        await #expect(try driver.send("delete bv-test.confirm alice") == "error userCancel")
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("Prompt /org/freedesktop/secrets/prompt/p1 window="), "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("Dismiss") }, "\(calls)")
    }

    /// A prompt nobody answers (a dialog on a display nobody watches) ends at the store's bound with
    /// `storeLocked`, and the store dismisses it.
    @Test func anUnansweredPromptEndsAtTheBoundAndIsDismissed() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.confirmingProvider(answer: "never"), on: bus)
        let driver = try await StoreDriver(environment: bus.environment)
        await #expect(status(try driver.send("init 700")) == "ok")
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(try driver.send("delete bv-test.confirm alice") == "error storeLocked")
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(600) && elapsed < .seconds(3), "\(elapsed)")
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("Prompt /org/freedesktop/secrets/prompt/p1 window="), "\(calls)")
        #expect(calls.contains("Dismiss /org/freedesktop/secrets/prompt/p1"), "\(calls)")
    }

    /// KWallet answers GetSecrets for an item of a closed wallet with an empty secret and no error. Its
    /// search lists such items as locked, so only a wallet closed between the search and GetSecrets
    /// meets it: a fake provider gives that answer on demand. The item is locked (its Locked property),
    /// never read as empty, never an undecryptable "corrupted" item.
    @Test func anEmptySecretFromALockedItemIsStoreLockedNeverTheItem() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.confirmingProvider(answer: "never", emptySecrets: true), on: bus)
        let driver = try await StoreDriver(environment: bus.environment)
        await #expect(status(try driver.send("init 1000 never")) == "ok")
        await #expect(try driver.send("read bv-test.empty alice") == "error storeLocked")
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("GetSecrets /org/freedesktop/secrets"), "\(calls)")
        #expect(calls.contains("Get Locked"), "\(calls)")
    }

    /// Owns org.freedesktop.secrets: an encrypted session (a fixed public key, of SessionEncryptionTests'
    /// vectors; no secret crosses here), one unlocked item for every search, and a prompt for every Delete, which
    /// it completes as dismissed (`answer` "dismiss") or never ("never"). Prints each call's member and path.
    /// With `emptySecrets`, GetSecrets answers every item with an empty value and the item's Locked is true.
    static func confirmingProvider(answer: String, emptySecrets: Bool = false) -> String { """
        from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
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
            if member == "Get" and msg.body[1] == "Locked":
                print(member, "Locked", flush=True)
                conn.send(new_method_return(msg, "v", (("b", \(emptySecrets ? "True" : "False")),)))
            elif member == "Get":
                print(member, flush=True)
                conn.send(new_method_return(msg, "v", (("ao", []),)))
            elif member == "GetSecrets" and \(emptySecrets ? "True" : "False"):
                print(member, path, flush=True)
                secret = ("/org/freedesktop/secrets/session/s1", b"", b"", "text/plain")
                conn.send(new_method_return(msg, "a{o(oayays)}", ({item: secret},)))
            elif member == "OpenSession":
                print(member, flush=True)
                key = bytes.fromhex(
                    "0c2c7c2d97d482632eaccb5eee13dd155a495548fc00c7363e828eb9db43f73bc595d0be44f730b695e42be52d243d19"
                    "bdf31a7544cd9258edc1f2ce7bf4caa04d11652b0fd8eb178e4cd83ef30d8f0cdfb15218a00a499d5313cb5a0acdf89f"
                    "73fc95711ae6cea70df5b6d370fd75df9efd7e3d19925d40c84188cddbd7f314")
                conn.send(new_method_return(msg, "vo", (("ay", key), "/org/freedesktop/secrets/session/s1")))
            elif member == "SearchItems":
                print(member, flush=True)
                conn.send(new_method_return(msg, "aoao", ([item], [])))
            elif member == "Delete":
                print(member, path, flush=True)
                conn.send(new_method_return(msg, "o", ("/org/freedesktop/secrets/prompt/p1",)))
            elif member == "Prompt":
                print(member, path, "window=" + msg.body[0], flush=True)
                conn.send(new_method_return(msg))
                if "\(answer)" == "dismiss":
                    prompt = DBusAddress(path, interface="org.freedesktop.Secret.Prompt")
                    conn.send(new_signal(prompt, "Completed", "bv", (True, ("s", ""))))
            elif member == "Dismiss":
                print(member, path, flush=True)
                conn.send(new_method_return(msg))
            else:
                print(member, path, flush=True)
                conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (str(member),)))
        """
    }
}
#endif
