#if os(Linux)
import BiometricsVaultCore
import Foundation
import Testing

/// What an eavesdropper on the session bus sees: `dbus-monitor` on a private bus while a
/// `SecretServiceTestDriver` process writes and reads an item through the real gnome-keyring.
@Suite(.enabled(if: Daemon.runPrivateKeyringTests, "needs dbus-daemon, dbus-monitor and gnome-keyring-daemon"))
struct TransportEncryptionTests {
    @Test func secretsCrossTheBusOnlyEncrypted() throws {
        let keyring = try PrivateKeyring()
        let monitor = try BusMonitor(keyring)
        let driver = try StoreDriver(environment: keyring.environment)
        #expect(try driver.send("init").hasPrefix("ok"))
        let canary = "bv-transport-canary-\(UUID().uuidString.prefix(8))"
        #expect(try driver.send("write bv-test.transport alice plain {\"token\":\"\(canary)\"}") == "ok")
        #expect(try driver.send("read bv-test.transport alice") == "item plain {\"token\":\"\(canary)\"}")
        let capture = try monitor.capture()

        // The monitor saw the session's key exchange, both secret-carrying calls and their clear-text
        // parts (an attribute value)...
        #expect(capture.contains("string \"dh-ietf1024-sha256-aes128-cbc-pkcs7\""))
        #expect(capture.contains("member=CreateItem"))
        #expect(capture.contains("member=GetSecret"))
        #expect(capture.contains("bv-test.transport"))
        // ... but not the secret: neither as text (how dbus-monitor prints printable byte arrays) nor as
        // hex bytes (how it prints the others).
        #expect(!capture.contains(canary))
        let hex = canary.utf8.map { String($0, radix: 16) }.joined()
        #expect(!capture.filter { !$0.isWhitespace }.contains(hex))
    }
}
#endif
