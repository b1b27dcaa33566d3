#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Testing

/// A provider of the user's own that follows the protocol but not in good faith: one that answers every
/// attribute read slowly, and one whose source item changes while it is being imported. The provider is
/// an in-memory Secret Service (python with jeepney, the real session encryption) on a private bus.
@Suite(.onTestThreads, .needs(Daemon.privateKeyring))
struct HostileProviderTests {
    static let listedService = "bv-test.slow"

    /// 400 items whose `Properties.Get` each take 2.5 s, 64 at a time (the store's pipeline window): a
    /// listing that waits for all of them takes about 17 s. The whole listing is bounded by the store's
    /// timeout plus 10 ms an item: 7 s here.
    @Test func aListingOfASlowProviderEndsAtItsBound() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.inMemoryProvider(items: 400, attributeDelay: 2.5), on: bus)
        try await withCleanup { () async throws -> Void in
            let store = try SecretServiceStore(busAddress: bus.address, timeout: .seconds(3))
            let clock = ContinuousClock()
            let start = clock.now
            let error = #expect(throws: VaultError.self) { try store.keys(service: Self.listedService) }
            let elapsed = clock.now - start
            #expect(error?.code == .storeUnavailable, "\(String(describing: error))")
            #expect("\(String(describing: error))".contains("400 items"), "\(String(describing: error))")
            #expect(elapsed >= .seconds(6) && elapsed < .seconds(11), "\(elapsed)")
        } cleanup: {
            _ = await provider.stopAndReadCalls()
        }
    }

    /// The same provider answering at once lists every item.
    @Test func aListingOfAPromptProviderIsComplete() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.inMemoryProvider(items: 400, attributeDelay: 0), on: bus)
        try await withCleanup { () async throws -> Void in
            let store = try SecretServiceStore(busAddress: bus.address, timeout: .seconds(3))
            #expect(try store.keys(service: Self.listedService).count == 400)
        } cleanup: {
            _ = await provider.stopAndReadCalls()
        }
    }

    /// The source changes after its secret was read (another program updates it in place): the vault then
    /// holds the old secret, so the source, which holds the new one, must stay.
    @Test func aSourceChangedDuringImportIsKept() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.inMemoryProvider(items: 0, attributeDelay: 0, changesSource: true), on: bus)
        let store = try SecretServiceStore(busAddress: bus.address, timeout: .seconds(3))
        let id = try SecretItemID(service: "bv-test.import", key: "alice")
        let error = #expect(throws: VaultError.self) {
            try store.importItem(service: "legacy", username: "alice", as: id, removeSource: true)
        }
        #expect(error?.code == .invalidVault, "\(String(describing: error))")
        #expect("\(String(describing: error))".contains("changed"), "\(String(describing: error))")
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("changed \(Self.sourcePath)"), "\(calls)")
        #expect(!calls.contains("Delete \(Self.sourcePath)"), "\(calls)")
    }

    /// A source whose other attributes changed after the read (its service, username and secret did
    /// not) is still the credential that was imported: it is deleted. gnome-keyring under load was seen
    /// to report such differences, which made `import --remove-source` keep the source and fail.
    @Test func aSourceWhoseOtherAttributesChangedIsRemoved() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(
            script: Self.inMemoryProvider(items: 0, attributeDelay: 0, changesSourceSchema: true), on: bus)
        let store = try SecretServiceStore(busAddress: bus.address, timeout: .seconds(3))
        let id = try SecretItemID(service: "bv-test.import", key: "alice")
        try store.importItem(service: "legacy", username: "alice", as: id, removeSource: true)
        #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: #""old""#))
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("changed \(Self.sourcePath)"), "\(calls)")
        #expect(calls.contains("Delete \(Self.sourcePath)"), "\(calls)")
    }

    /// An unchanged source is deleted once the vault item reads back.
    @Test func anUnchangedSourceIsRemoved() async throws {
        let bus = try await PrivateKeyring(withKeyring: false)
        let provider = try await FakeProvider(script: Self.inMemoryProvider(items: 0, attributeDelay: 0), on: bus)
        let store = try SecretServiceStore(busAddress: bus.address, timeout: .seconds(3))
        let id = try SecretItemID(service: "bv-test.import", key: "alice")
        try store.importItem(service: "legacy", username: "alice", as: id, removeSource: true)
        #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: #""old""#))
        let calls = await provider.stopAndReadCalls()
        #expect(calls.contains("Delete \(Self.sourcePath)"), "\(calls)")
    }

    static let sourcePath = "/org/freedesktop/secrets/collection/login/1"

    /// An in-memory Secret Service: the default collection, unlocked; the source item `legacy`/`alice`
    /// (secret `"old"`, path ``sourcePath``) that python keyring would have written; `items` vault items
    /// under ``listedService`` (`k0`, `k1`, ...). Each `Attributes` read is answered `attributeDelay`
    /// seconds after it arrived (answers overlap, as a busy provider's do). With `changesSource`, the
    /// source's secret becomes `"new"` right after the first GetSecrets that returned it. Prints
    /// "changed PATH", and each Delete and CreateItem.
    static func inMemoryProvider(items: Int, attributeDelay: Double, changesSource: Bool = false, changesSourceSchema: Bool = false) -> String { #"""
        import heapq, os, time
        from jeepney import HeaderFields, MessageType, new_error, new_method_return
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        from cryptography.hazmat.primitives import hashes, padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        P = int("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
                "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
                "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)
        collection = "/org/freedesktop/secrets/collection/login"
        session = "/org/freedesktop/secrets/session/s1"
        store = {}
        count = [0]
        def add(attributes, secret):
            count[0] += 1
            path = collection + "/" + str(count[0])
            store[path] = [attributes, secret]
            return path
        source = add({"service": "legacy", "username": "alice"}, b'"old"')
        for index in range(\#(items)):
            add({"xdg:schema": "io.github.biometricsvault.Plain", "service": "\#(listedService)", "username": "k" + str(index),
                 "bv-header": "bv1;none"}, b"{}")
        key = [None]
        changed = [False]
        def encrypt(data):
            iv = os.urandom(16)
            padder = padding.PKCS7(128).padder()
            data = padder.update(data) + padder.finalize()
            encryptor = Cipher(algorithms.AES(key[0]), modes.CBC(iv)).encryptor()
            return iv, encryptor.update(data) + encryptor.finalize()
        def decrypt(iv, data):
            decryptor = Cipher(algorithms.AES(key[0]), modes.CBC(iv)).decryptor()
            data = decryptor.update(data) + decryptor.finalize()
            unpadder = padding.PKCS7(128).unpadder()
            return unpadder.update(data) + unpadder.finalize()
        conn = open_dbus_connection(bus="SESSION")
        conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets"))
        print("ready", flush=True)
        pending = []
        sequence = 0
        while True:
            now = time.monotonic()
            while pending and pending[0][0] <= now:
                conn.send(heapq.heappop(pending)[2])
            try:
                msg = conn.receive(timeout=(pending[0][0] - now) if pending else None)
            except TimeoutError:
                continue
            if msg.header.message_type != MessageType.method_call:
                continue
            member = msg.header.fields.get(HeaderFields.member)
            path = msg.header.fields.get(HeaderFields.path)
            reply = None
            if member == "Get" and msg.body[1] == "Attributes":
                if path not in store:
                    reply = new_error(msg, "org.freedesktop.DBus.Error.UnknownObject", "s", (path,))
                elif \#(attributeDelay) > 0:
                    sequence += 1
                    heapq.heappush(pending, (time.monotonic() + \#(attributeDelay), sequence, new_method_return(msg, "v", (("a{ss}", store[path][0]),))))
                    continue
                else:
                    reply = new_method_return(msg, "v", (("a{ss}", store[path][0]),))
            elif member == "Get" and msg.body[1] == "Collections":
                reply = new_method_return(msg, "v", (("ao", [collection]),))
            elif member == "Get" and msg.body[1] == "Locked":
                reply = new_method_return(msg, "v", (("b", False),))
            elif member == "Get" and msg.body[1] == "Created":
                reply = new_method_return(msg, "v", (("t", int(path.rsplit("/", 1)[1]) if path in store else 0),))
            elif member == "OpenSession":
                private = int.from_bytes(os.urandom(32), "big")
                shared = pow(int.from_bytes(msg.body[1][1], "big"), private, P).to_bytes(128, "big")
                key[0] = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=b"").derive(shared)
                reply = new_method_return(msg, "vo", (("ay", pow(2, private, P).to_bytes(128, "big")), session))
            elif member == "ReadAlias":
                reply = new_method_return(msg, "o", (collection,))
            elif member == "SearchItems":
                found = [p for p, (attributes, _) in store.items() if all(attributes.get(k) == v for k, v in msg.body[0].items())]
                reply = new_method_return(msg, "aoao", (found, []))
            elif member == "GetSecrets":
                answer = {}
                for p in msg.body[0]:
                    if p in store:
                        iv, value = encrypt(store[p][1])
                        answer[p] = (session, iv, value, "text/plain")
                reply = new_method_return(msg, "a{o(oayays)}", (answer,))
                if \#(changesSource ? "True" : "False") and source in answer and not changed[0]:
                    changed[0] = True
                    store[source][1] = b'"new"'
                    print("changed", source, flush=True)
                if \#(changesSourceSchema ? "True" : "False") and source in answer and not changed[0]:
                    changed[0] = True
                    store[source][0]["xdg:schema"] = "org.example.Other"
                    print("changed", source, flush=True)
            elif member == "CreateItem":
                properties, secret = msg.body[0], msg.body[1]
                created = add(dict(properties["org.freedesktop.Secret.Item.Attributes"][1]), decrypt(secret[1], secret[2]))
                print("CreateItem", created, flush=True)
                reply = new_method_return(msg, "oo", (created, "/"))
            elif member == "Delete":
                store.pop(path, None)
                print("Delete", path, flush=True)
                reply = new_method_return(msg, "o", ("/",))
            elif member == "Unlock":
                reply = new_method_return(msg, "aoo", (msg.body[0], "/"))
            elif member == "Close":
                reply = new_method_return(msg)
            else:
                reply = new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (str(member),))
            conn.send(reply)
        """#
    }
}
#endif
