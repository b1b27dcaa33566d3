#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// `biometrics-vault secret-service` on the test user's own session bus, started by session-bus
/// activation from the package's activation file (the path of this build put in), its items in the
/// vault service, used by clients no one here wrote: `secret-tool`, python `keyring` and `secretstorage`
/// (Debian's), as the non-root test user. Part of the vault service's serialized suite: one reader.
extension VaultServiceCLITests {
    /// A private session bus of `user` whose activation directory holds the provider's activation file,
    /// as `~/.local/share/dbus-1/services` does once a user chooses it. Its address; `stop` ends it (and so
    /// the provider, whose bus goes).
    func providerBus(for user: String) async throws -> (address: String, log: URL, stop: @Sendable () async -> Void) {
        let home = sandbox.root.appendingPathComponent("home-\(user)")
        let services = home.appendingPathComponent(".local/share/dbus-1/services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let activation = try String(contentsOf: Self.resource("Resources/linux/secret-service/org.freedesktop.secrets.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/biometrics-vault", with: CLISandbox.binary.path)
        try activation.write(to: services.appendingPathComponent("org.freedesktop.secrets.service"), atomically: true, encoding: .utf8)
        // A socket path fits in 108 bytes: under /tmp, not under the sandbox (CI's is deep in the run's
        // temporary directory, and dbus-daemon then refuses: "Socket name too long").
        var template = Array("/tmp/bv-bus.XXXXXX".utf8CString)
        let directory = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, directory])
        let socket = directory + "/bus"
        let config = home.appendingPathComponent("session.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(services.path)</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), ["-R", user, home.path])
        let log = sandbox.root.appendingPathComponent("bus-\(user).log")
        let bus = try await sandbox.start(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", shellQuoted(command(["--config-file=\(config.path)", "--nofork", "--nopidfile"], as: user, executable: "/usr/bin/dbus-daemon"))
                + " >\(log.path) 2>&1"])
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) {
            try await Task.sleep(for: .milliseconds(25))
        }
        try #require(FileManager.default.fileExists(atPath: socket), "the session bus did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let address = "unix:path=\(socket)"
        return (address, log, { [sandbox] in
            // The bus first: the provider it started exits when its bus goes.
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pkill"), ["-u", user, "-f", "dbus-daemon --config-file=\(config.path)"])
            bus.process.terminate()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pkill"), ["-u", user, "-f", "biometrics-vault secret-service"])
            try? FileManager.default.removeItem(atPath: directory)
        })
    }

    /// ``providerBus(for:)`` with `unlock-window = 5m` in the user's config file, which the activated
    /// provider reads.
    func providerBusWithWindows(for user: String) async throws -> (address: String, log: URL, stop: @Sendable () async -> Void) {
        let config = sandbox.root.appendingPathComponent("home-\(user)/.config/biometrics-vault")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "unlock-window = 5m\n".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        return try await providerBus(for: user)
    }

    /// Runs `arguments` as `user` on the session bus at `bus`.
    func onBus(_ bus: String, _ arguments: [String], as user: String, executable: String, stdin: String? = nil) async throws -> CLIResult {
        try await run(["DBUS_SESSION_BUS_ADDRESS=\(bus)", executable] + arguments, as: user, stdin: stdin, executable: "/usr/bin/env")
    }

    /// On a pty, as `user`, on the session bus at `bus`.
    func sessionOnBus(_ bus: String, _ arguments: [String], as user: String, executable: String) async throws -> PTYSession {
        try await session(["DBUS_SESSION_BUS_ADDRESS=\(bus)", executable] + arguments, as: user, executable: "/usr/bin/env")
    }

    /// A client program of the test user: python's `secretstorage` (Debian's), one action per run.
    static let client = #"""
        import sys, time, secretstorage
        from secretstorage.util import DBusAddressWrapper, open_session, exec_prompt
        from jeepney import MatchRule, MessageType
        c = secretstorage.dbus_init()
        action, service = sys.argv[1], sys.argv[2]
        svc = DBusAddressWrapper("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", c)
        if action == "guarded-collection":
            properties = {"org.freedesktop.Secret.Collection.Label": ("s", "Guarded"),
                          "io.github.biometricsvault.Collection.Policy": ("s", "biometryAny")}
            path, prompt = svc.call("CreateCollection", "a{sv}s", properties, "")
            collection = secretstorage.Collection(c, path)
            print("collection locked", collection.is_locked(), flush=True)
            unlocked, prompt = svc.call("Unlock", "ao", [path])
            print("dismissed", exec_prompt(c, prompt)[0] if prompt != "/" else None)
            collection.create_item("In guarded", {"service": service}, b"guarded-secret")
            print("stored in", path)
            sys.exit(0)
        items = list(secretstorage.search_items(c, {"service": service}))
        if not items:
            print("no item"); sys.exit(3)
        item = items[0]
        print("locked", item.is_locked())
        def get_secret_directly():
            session = open_session(c)
            try:
                raw = DBusAddressWrapper(item.item_path, "org.freedesktop.Secret.Item", c).call("GetSecret", "o", session.object_path)
                print("GetSecret gave", len(raw[0][2]), "bytes")
            except Exception as error:
                print("GetSecret refused", getattr(error, "name", type(error).__name__))
            found, = svc.call("GetSecrets", "aoo", [item.item_path], session.object_path)
            print("GetSecrets gave", len(found), "secrets")
        if action == "plain-session":
            # The `plain` algorithm (secretstorage and libsecret open an encrypted session when offered one).
            output, session = svc.call("OpenSession", "sv", "plain", ("s", ""))
            found, = svc.call("GetSecrets", "aoo", [item.item_path], session)
            for session_path, parameters, value, content_type in found.values():
                print("plain", session_path == session, len(parameters), bytes(value).decode(), content_type)
        elif action == "hostile":
            print("path", item.item_path)
            get_secret_directly()
        elif action == "unlock":
            unlocked, prompt = svc.call("Unlock", "ao", [item.item_path])
            dismissed, result = exec_prompt(c, prompt) if prompt != "/" else (False, None)
            print("dismissed", dismissed)
            if not dismissed:
                print("secret", item.get_secret().decode())
                collections = DBusAddressWrapper("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", c).get_property("Collections")
                svc.call("Lock", "ao", list(collections))
                print("after lock, locked", item.is_locked())
                get_secret_directly()
        elif action in ("dismiss", "leave"):
            unlocked, prompt = svc.call("Unlock", "ao", [item.item_path])
            rule = MatchRule(path=prompt, interface="org.freedesktop.Secret.Prompt", member="Completed", type=MessageType.signal)
            with c.filter(rule) as signals:
                DBusAddressWrapper(prompt, "org.freedesktop.Secret.Prompt", c).call("Prompt", "s", "")
                print("prompting", flush=True)
                input()  # the test answers once fprintd asks for a finger
                if action == "leave":
                    import os; os._exit(0)
                DBusAddressWrapper(prompt, "org.freedesktop.Secret.Prompt", c).call("Dismiss", "")
                message = c.recv_until_filtered(signals, timeout=10)
                print("completed dismissed", message.body[0])
            print("locked", item.is_locked())
        elif action == "deleted":
            item.delete()
            try:
                item.get_secret(); print("read a deleted item")
            except Exception as error:
                print("deleted item:", type(error).__name__)
        """#

    func secretStorageClient(_ bus: String, _ action: String, _ service: String, as user: String) async throws -> CLIResult {
        try await onBus(bus, ["-c", Self.client, action, service], as: user, executable: "/usr/bin/python3")
    }

    static func resource(_ path: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(path)
    }

    @Test(.needs(CLINeeds.testUser))
    func theSecretServiceProviderKeepsWhatSecretToolAndKeyringStoreInTheVaultService() async throws {
        try await prepareHomes()
        let bus = try await providerBus(for: user)
        try await withCleanup { () async throws -> Void in
            let secret = "kept-by-the-provider"
            // secret-tool: store (the secret on stdin), lookup, search, clear; the first call activates it.
            let stored = try await onBus(bus.address, ["store", "--label", "Provider check", "service", "bv-provider", "user", "ci"],
                                         as: user, executable: "/usr/bin/secret-tool", stdin: secret)
            #expect(stored.status == 0, "\(stored.stderr) \((try? String(contentsOf: bus.log, encoding: .utf8)) ?? "")")
            let looked = try await onBus(bus.address, ["lookup", "service", "bv-provider"], as: user, executable: "/usr/bin/secret-tool")
            #expect(looked.stdout == secret, "\(looked.stdout)|\(looked.stderr)")
            let plainSession = try await secretStorageClient(bus.address, "plain-session", "bv-provider", as: user)
            #expect(plainSession.stdout.contains("plain True 0 \(secret) text/plain"), "\(plainSession.stdout)\(plainSession.stderr)")
            let searched = try await onBus(bus.address, ["search", "--all", "service", "bv-provider"], as: user, executable: "/usr/bin/secret-tool")
            // secret-tool prints the attributes on stderr.
            #expect(searched.stdout.contains("label = Provider check") && searched.stderr.contains("attribute.user = ci"), "\(searched.stdout)\(searched.stderr)")

            // python keyring (Debian's), through its SecretService backend (its default there chains backends).
            let keyring = try await onBus(bus.address, ["-c", """
                import keyring.backends.SecretService
                backend = keyring.backends.SecretService.Keyring()
                backend.set_password("bv-keyring", "ci", "from-python")
                print(backend.get_password("bv-keyring", "ci"))
                backend.delete_password("bv-keyring", "ci")
                print(backend.get_password("bv-keyring", "ci"))
                """], as: user, executable: "/usr/bin/python3")
            #expect(keyring.stdout == "from-python\nNone\n", "\(keyring.stdout)\(keyring.stderr)")

            // The item is in the vault service, for this user: its key is listed there, and nothing of it is
            // in the user's files.
            let listed = try await run(["--store", "service", "--service", "secret-service:login", "list"], as: user)
            #expect(listed.status == 0 && !listed.stdout.isEmpty, "\(listed.stdout)\(listed.stderr)")
            let home = sandbox.root.appendingPathComponent("home-\(user)").path
            let files = try await run(["-r", secret, home], as: user, executable: "/bin/grep")
            #expect(files.status == 1, "the secret is in a file of the user: \(files.stdout)")
            let other = try await run(["--store", "service", "--service", "secret-service:login", "list"], as: self.other)
            #expect(other.status == 0 && other.stdout.isEmpty, "another user sees the provider's items: \(other.stdout)\(other.stderr)")

            let cleared = try await onBus(bus.address, ["clear", "service", "bv-provider"], as: user, executable: "/usr/bin/secret-tool")
            #expect(cleared.status == 0, "\(cleared.stderr)")
            let gone = try await onBus(bus.address, ["lookup", "service", "bv-provider"], as: user, executable: "/usr/bin/secret-tool")
            #expect(gone.status != 0 && gone.stdout.isEmpty, "\(gone.stdout)")
        } cleanup: {
            await bus.stop()
        }
    }

    /// An item under a policy of its own is locked to a program without a finger, and released to
    /// `secret-tool` after a matching one; a wrong finger leaves it locked; another program is asked
    /// again, and its grant ends when it locks the whole service.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aProtectedSecretServiceItemIsReleasedToEachProgramOnlyAfterItsOwnFinger() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let bus = try await providerBus(for: user)
        try await withCleanup { () async throws -> Void in
            let secret = "behind-the-provider"
            try await storeProtectedThroughTheProvider(secret, service: "bv-protected", bus: bus)
            // A program with no finger on the reader: the item is locked, and asking directly gets nothing.
            let hostile = try await secretStorageClient(bus.address, "hostile", "bv-protected", as: user)
            #expect(hostile.stdout.contains("locked True"), "\(hostile.stdout)\(hostile.stderr)")
            #expect(hostile.stdout.contains("GetSecret refused org.freedesktop.Secret.Error.IsLocked"), "\(hostile.stdout)\(hostile.stderr)")
            #expect(hostile.stdout.contains("GetSecrets gave 0 secrets"), "\(hostile.stdout)")
            #expect(!hostile.stdout.contains(secret))

            // secret-tool lookup completes only after a matching finger.
            let lookup = try await sessionOnBus(bus.address, ["lookup", "service", "bv-protected"], as: user, executable: "/usr/bin/secret-tool")
            try await reader.waitForFingerNeeded()
            try await reader.scan(Self.finger)
            #expect(try await lookup.finish() == 0, "\(lookup.text)")
            #expect(lookup.text.contains(secret), "\(lookup.text)")
            // The prompt named the program the bus reported (the provider's log reaches the bus's).
            let log = (try? String(contentsOf: bus.log, encoding: .utf8)) ?? ""
            #expect(log.contains(#"secret-tool (pid "#) && log.contains(#"completed a prompt to unlock read "Protected""#), "\(log)")

            // A wrong finger leaves it locked.
            let wrong = try await sessionOnBus(bus.address, ["lookup", "service", "bv-protected"], as: user, executable: "/usr/bin/secret-tool")
            try await reader.waitForFingerNeeded()
            try await reader.scan("not-enrolled-anywhere")
            #expect(try await wrong.finish() != 0, "\(wrong.text)")
            #expect(!wrong.text.contains(secret), "\(wrong.text)")

            // Another program is asked again; its grant ends when it locks the whole service (every collection).
            let running = try await sessionOnBus(bus.address, ["-c", Self.client, "unlock", "bv-protected"], as: user, executable: "/usr/bin/python3")
            try await reader.waitForFingerNeeded()
            try await reader.scan(Self.finger)
            _ = try await running.finish()
            #expect(running.text.contains("dismissed False") && running.text.contains("secret \(secret)"), "\(running.text)")
            #expect(running.text.contains("after lock, locked True"), "\(running.text)")
            #expect(running.text.contains("GetSecret refused org.freedesktop.Secret.Error.IsLocked"), "\(running.text)")
        } cleanup: {
            await bus.stop()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A same-user program that rewrites a protected item's plain record in the vault service (its label
    /// and attributes, and a claim that it has no policy) and has the provider start again unprotects
    /// nothing: the vault service's own header still says how the item is protected.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aRewrittenRecordOfAProtectedItemLeavesItProtected() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let bus = try await providerBus(for: user)
        try await withCleanup { () async throws -> Void in
            let secret = "behind-the-provider"
            try await storeProtectedThroughTheProvider(secret, service: "bv-forged", bus: bus)
            let hostile = try await secretStorageClient(bus.address, "hostile", "bv-forged", as: user)
            #expect(hostile.stdout.contains("locked True"), "\(hostile.stdout)\(hostile.stderr)")
            let key = try #require(hostile.stdout.split(separator: "\n").first { $0.hasPrefix("path ") }?.split(separator: "/").last.map(String.init))
            let forged = Array(#"{"label":"Protected","attributes":{"service":"bv-forged"},"contentType":"text/plain","created":0,"modified":0}"#.utf8)
            let write = try await run(
                ["call", "--system", "--dest", "io.github.biometricsvault.Vault1", "--object-path", "/io/github/biometricsvault/Vault1",
                 "--method", "io.github.biometricsvault.Vault1.Write", "secret-service:login:meta", key, "bv1;none",
                 "[" + forged.map { String(format: "0x%02x", $0) }.joined(separator: ", ") + "]", "anything", "", "[]"],
                as: user, executable: "/usr/bin/gdbus")
            #expect(write.status == 0, "\(write.stderr)")
            let stopped = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pkill"), ["-u", user, "-f", "biometrics-vault secret-service"])
            #expect(stopped.status == 0, "no provider was running: \(stopped.stderr)")
            // The next client starts a new one by D-Bus activation once this one is gone.
            var providerRuns = true
            for _ in 0..<200 where providerRuns {
                let found = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pgrep"), ["-u", user, "-f", "biometrics-vault secret-service"])
                providerRuns = found.status == 0
                if providerRuns { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(!providerRuns, "the provider did not exit")
            let restarted = try await secretStorageClient(bus.address, "hostile", "bv-forged", as: user)
            #expect(restarted.stdout.contains("locked True") && restarted.stdout.contains("GetSecrets gave 0 secrets"), "\(restarted.stdout)\(restarted.stderr)")
            #expect(!restarted.stdout.contains(secret))
        } cleanup: {
            await bus.stop()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A collection with a policy: locked until the client's finger, and what is stored in it is
    /// protected without an attribute of its own.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aCollectionWithAPolicyProtectsWhatIsStoredInIt() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let bus = try await providerBus(for: user)
        try await withCleanup { () async throws -> Void in
            let guarded = try await sessionOnBus(bus.address, ["-c", Self.client, "guarded-collection", "bv-guarded"], as: user, executable: "/usr/bin/python3")
            try await reader.waitForFingerNeeded()
            try await reader.scan(Self.finger)
            _ = try await guarded.finish()
            #expect(guarded.text.contains("collection locked True") && guarded.text.contains("dismissed False")
                && guarded.text.contains("stored in /org/freedesktop/secrets/collection/guarded"), "\(guarded.text)")
            let outsider = try await secretStorageClient(bus.address, "hostile", "bv-guarded", as: user)
            #expect(outsider.stdout.contains("locked True") && outsider.stdout.contains("GetSecrets gave 0 secrets"), "\(outsider.stdout)\(outsider.stderr)")
            #expect(!outsider.stdout.contains("guarded-secret"))
        } cleanup: {
            await bus.stop()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// Stores `secret` through the provider on `bus` with `secret-tool`, as the item of `service`, under
    /// its own policy by an attribute: storing it asks for the finger already.
    func storeProtectedThroughTheProvider(
        _ secret: String, service: String, bus: (address: String, log: URL, stop: @Sendable () async -> Void)
    ) async throws {
        let store = try await sessionOnBus(
            bus.address, ["-c", "printf %s \(secret) | secret-tool store --label Protected biometrics-vault:policy biometryAny service \(service)"],
            as: user, executable: "/bin/sh")
        try await reader.waitForFingerNeeded()
        try await reader.scan(Self.finger)
        #expect(try await store.finish() == 0, "\(store.text) \((try? String(contentsOf: bus.log, encoding: .utf8)) ?? "")")
    }

    /// With `unlock-window = 5m` in the user's config file, which the activated provider reads: one
    /// finger serves the next programs of the same terminal session, not another terminal's, not a
    /// program without a terminal, and not after a `Lock`.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aWindowOfTheProviderServesItsTerminalSessionOnly() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let bus = try await providerBusWithWindows(for: user)
        try await withCleanup { () async throws -> Void in
            let secret = "inside-the-providers-window"
            let store = try await sessionOnBus(
                bus.address, ["-c", "printf %s \(secret) | secret-tool store --label Windowed biometrics-vault:policy biometryAny service bv-window"],
                as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await store.finish() == 0, "\(store.text)")

            let script = """
                secret-tool lookup service bv-window; echo; echo step-1; read _
                secret-tool lookup service bv-window; echo; secret-tool lookup service bv-window; echo; echo step-2; read _
                python3 -c "$LOCK"; secret-tool lookup service bv-window; echo; echo step-3
                """
            let lock = """
                import secretstorage
                from secretstorage.util import DBusAddressWrapper
                c = secretstorage.dbus_init()
                svc = DBusAddressWrapper("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", c)
                svc.call("Lock", "ao", list(svc.get_property("Collections")))
                """
            let terminal = try await sessionOnBus(bus.address, ["LOCK=\(lock)", "/bin/sh", "-c", script], as: user, executable: "/usr/bin/env")
            try await answerFinger()
            #expect(try await terminal.waitFor("step-1"), "\(terminal.text)")
            // Another terminal, and a program without one, are asked.
            let other = try await sessionOnBus(bus.address, ["lookup", "service", "bv-window"], as: user, executable: "/usr/bin/secret-tool")
            try await answerFinger()
            #expect(try await other.finish() == 0 && other.text.contains(secret), "\(other.text)")
            let detached = try await session(
                ["DBUS_SESSION_BUS_ADDRESS=\(bus.address)", "/usr/bin/secret-tool", "lookup", "service", "bv-window"], as: user,
                detached: true, executable: "/usr/bin/env")
            try await answerFinger()
            #expect(try await detached.finish() == 0 && detached.text.contains(secret), "\(detached.text)")
            // The same terminal session: two more programs, no finger.
            terminal.type("\n")
            #expect(try await terminal.waitFor("step-2"), "\(terminal.text)")
            #expect(try await !reader.fingerNeeded(), "a program of the window's session was asked for a finger")
            #expect(terminal.text.components(separatedBy: secret).count - 1 == 3, "\(terminal.text)")
            // Lock closes the window: the next program of the session is asked.
            terminal.type("\n")
            try await answerFinger()
            #expect(try await terminal.waitFor("step-3"), "\(terminal.text)")
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: secret).count - 1 == 4, "\(terminal.text)")
            let log = (try? String(contentsOf: bus.log, encoding: .utf8)) ?? ""
            #expect(log.contains("unlock window opened for tty"), "\(log)")
        } cleanup: {
            await bus.stop()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aSecretServicePromptDismissedOrLeftAndAnItemDeletedWhileReadEndCleanly() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let bus = try await providerBus(for: user)
        try await withCleanup { () async throws -> Void in
            let store = try await sessionOnBus(
                bus.address, ["-c", "printf %s edge-secret | secret-tool store --label Edge biometrics-vault:policy biometryAny service bv-edge"],
                as: user, executable: "/bin/sh")
            try await reader.waitForFingerNeeded()
            try await reader.scan(Self.finger)
            #expect(try await store.finish() == 0, "\(store.text)")

            // Dismissed while fprintd waits for the finger: Completed(dismissed), the reader released, the
            // item still locked.
            func released() async throws -> Bool {
                for _ in 0..<100 {
                    if try await !reader.fingerNeeded() { return true }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return false
            }
            func busLog() -> String { (try? String(contentsOf: bus.log, encoding: .utf8)) ?? "" }
            let dismissed = try await sessionOnBus(bus.address, ["-c", Self.client, "dismiss", "bv-edge"], as: user, executable: "/usr/bin/python3")
            #expect(try await dismissed.waitFor("prompting"), "\(dismissed.text)")
            try await reader.waitForFingerNeeded()
            dismissed.type("\n")
            _ = try await dismissed.finish()
            #expect(dismissed.text.contains("completed dismissed True") && dismissed.text.contains("locked True"), "\(dismissed.text)")
            #expect(try await released(), "the reader is still claimed after a dismissed prompt: \(busLog())")

            // A client that leaves while fprintd waits for the finger: the verify is stopped, and the next
            // program's prompt works.
            let left = try await sessionOnBus(bus.address, ["-c", Self.client, "leave", "bv-edge"], as: user, executable: "/usr/bin/python3")
            #expect(try await left.waitFor("prompting"), "\(left.text)")
            try await reader.waitForFingerNeeded()
            left.type("\n")
            _ = try await left.finish()
            #expect(try await released(), "the reader is still claimed after the client left: \(busLog())")
            let lookup = try await sessionOnBus(bus.address, ["lookup", "service", "bv-edge"], as: user, executable: "/usr/bin/secret-tool")
            try await answerFinger()
            #expect(try await lookup.finish() == 0 && lookup.text.contains("edge-secret"), "\(lookup.text) \(busLog())")

            // A plain item deleted while a client holds it: the read is an error, not a crash or old data.
            let plain = try await onBus(bus.address, ["store", "--label", "Plain", "service", "bv-deleted"], as: user,
                                        executable: "/usr/bin/secret-tool", stdin: "soon-gone")
            #expect(plain.status == 0, "\(plain.stderr)")
            let deleted = try await secretStorageClient(bus.address, "deleted", "bv-deleted", as: user)
            #expect(deleted.stdout.contains("deleted item: ItemNotFoundException"), "\(deleted.stdout)\(deleted.stderr)")
        } cleanup: {
            await bus.stop()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }
}
#endif
