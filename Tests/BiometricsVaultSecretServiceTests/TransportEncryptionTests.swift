#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultTestSupport
import Foundation
import Testing

/// What an eavesdropper on the session bus sees: `dbus-monitor` on a private bus while a
/// `SecretServiceTestDriver` process writes and reads an item through the real gnome-keyring.
@Suite(.onTestThreads, .needs(Daemon.privateKeyring))
struct TransportEncryptionTests {
    @Test func secretsCrossTheBusOnlyEncrypted() async throws {
        let keyring = try await PrivateKeyring()
        let monitor = try await BusMonitor(keyring)
        let driver = try await StoreDriver(environment: keyring.environment)
        await #expect(try driver.send("init").hasPrefix("ok"))
        let canary = "bv-transport-canary-\(UUID().uuidString.prefix(8))"
        await #expect(try driver.send("write bv-test.transport alice plain {\"token\":\"\(canary)\"}") == "ok")
        await #expect(try driver.send("read bv-test.transport alice") == "item plain {\"token\":\"\(canary)\"}")
        let capture = try await monitor.capture()

        // The monitor saw the session's key exchange, both secret-carrying calls and their clear-text
        // parts (an attribute value)...
        #expect(capture.contains("string \"dh-ietf1024-sha256-aes128-cbc-pkcs7\""))
        #expect(capture.contains("member=CreateItem"))
        #expect(capture.contains("member=GetSecrets"))
        #expect(capture.contains("bv-test.transport"))
        // ... but not the secret: neither as text (how dbus-monitor prints printable byte arrays) nor as
        // hex bytes (how it prints the others).
        #expect(!capture.contains(canary))
        let hex = canary.utf8.map { String($0, radix: 16) }.joined()
        #expect(!capture.filter { !$0.isWhitespace }.contains(hex))
    }

    /// A provider that offers only `plain` is refused with a typed error, where libsecret would send the
    /// secret in the clear. The provider is a fake (python with jeepney on a private bus): gnome-keyring
    /// always offers the encrypted algorithm, so it cannot show this.
    @Test func aProviderWithoutEncryptedSessionsIsRefused() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.plainOnlyProvider, on: bus)
        let driver = try await StoreDriver(environment: bus.environment)
        let answer = try await driver.send("init-why")
        #expect(answer.hasPrefix("error storeUnavailable: "), "\(answer)")
        #expect(answer.contains("offers no encrypted session"), "\(answer)")
        // The provider was asked for the encrypted algorithm, and never for `plain`.
        let calls = await provider.stopAndReadCalls()
        #expect(calls == ["Get", "OpenSession dh-ietf1024-sha256-aes128-cbc-pkcs7"], "\(calls)")
    }

    /// Owns org.freedesktop.secrets and prints each method call's member (and each OpenSession's
    /// algorithm). OpenSession is NotSupported unless `plain` is asked for; every other method is unknown,
    /// so the store's first call, the `Collections` read, is refused as a sparse provider might refuse it.
    static let plainOnlyProvider = """
        from jeepney import HeaderFields, MessageType, new_error, new_method_return
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        conn = open_dbus_connection(bus="SESSION")
        conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets"))
        print("ready", flush=True)
        while True:
            msg = conn.receive()
            if msg.header.message_type != MessageType.method_call:
                continue
            member = msg.header.fields.get(HeaderFields.member)
            if member == "OpenSession":
                print("OpenSession", msg.body[0], flush=True)
                if msg.body[0] == "plain":
                    conn.send(new_method_return(msg, "vo", (("s", ""), "/org/freedesktop/secrets/session/s1")))
                else:
                    conn.send(new_error(msg, "org.freedesktop.DBus.Error.NotSupported", "s", ("only plain",)))
            else:
                print(member, flush=True)
                conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (str(member),)))
        """
}
#endif
