#if os(Linux)
@testable import BiometricsVaultSecretServiceProvider
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultSecretService
import BiometricsVaultTesting
import Testing

/// One call made in-process, as a client on the bus would make it, with the answer the provider gave.
///
/// `@unchecked Sendable` is safe: `parameters` is an immutable GVariant (its reference count is atomic)
/// set in `init`; the answer is written and read only under `answer`'s lock.
final class RecordedCall: DBusIncomingCall, @unchecked Sendable {
    let sender: String
    let member: String
    let path: String
    let interface: String
    let parameters: DBusValue
    private let answer = LockedValue<Answer?>(nil)

    /// `@unchecked Sendable` is safe: a reply's `DBusValue` owns a reference to an immutable GVariant,
    /// which GLib lets any thread read.
    enum Answer: @unchecked Sendable {
        case reply(DBusValue?)
        case failure(name: String, message: String)
    }

    init(_ method: SecretServiceAPI.Method, at path: String, from sender: String, _ arguments: DBusArgument) {
        self.sender = sender
        member = method.member
        self.path = path
        interface = method.interface.rawValue
        parameters = DBusValue(arguments)
    }

    func reply(_ value: DBusArgument?) {
        let value = value.map(DBusValue.init)
        answer.withLock { if $0 == nil { $0 = .reply(value) } }
    }

    func fail(name: String, message: String) {
        answer.withLock { if $0 == nil { $0 = .failure(name: name, message: message) } }
    }

    var answered: Answer? { answer.withLock { $0 } }
}

/// The provider's collections, items, sessions and prompts driven in-process, without a bus: its items
/// in a simulated device's keychain, its prompts answered by that device's authenticator.
@Suite struct ProviderLogicTests {
    static let login = "/org/freedesktop/secrets/collection/login"
    let device = SimulatedDevice()
    let provider: SecretServiceProvider

    init() throws {
        let authenticator = device.authenticator
        provider = try SecretServiceProvider(
            store: device.store,
            authenticator: { policy, reason in try await authenticator.authenticate(for: policy, prompt: PromptText(reason: reason)) },
            log: { _ in })
    }

    /// Calls `method` on the object at `path` as `sender`: the reply's values, or the D-Bus error.
    func call(
        _ method: SecretServiceAPI.Method, at path: String = ProviderInterface.root, from sender: String, _ arguments: DBusArgument
    ) -> Result<DBusValue?, ProviderError> {
        let call = RecordedCall(method, at: path, from: sender, arguments)
        provider.answer(call)
        switch call.answered {
        case .reply(let value)?: return .success(value)
        case .failure(let name, let message)?: return .failure(ProviderError(name, message))
        case nil: return .failure(ProviderError("unanswered", "\(method.member) was not answered"))
        }
    }

    /// The reply of a call that must succeed.
    func reply(
        _ method: SecretServiceAPI.Method, at path: String = ProviderInterface.root, from sender: String, _ arguments: DBusArgument
    ) throws -> DBusValue {
        let value = try call(method, at: path, from: sender, arguments).get()
        return try #require(value, "\(method.member) replied with no values")
    }

    /// A `plain` session of `sender`: its path.
    func openSession(_ sender: String) throws -> String {
        let opened = try reply(.openSession, from: sender, .tuple([.string("plain"), .variant(.string(""))]))
        return try #require(opened[1].string)
    }

    /// `CreateItem` in the login collection: the item's path (`/` when a prompt must run first) and the
    /// prompt's (`/` for none).
    func createItem(
        _ sender: String, session: String, label: String, attributes: [(String, String)], secret: String
    ) throws -> (item: String, prompt: String) {
        let created = try reply(.createItem, at: Self.login, from: sender, .tuple([
            .vardict([
                (SecretServiceAPI.Property.itemLabel.qualifiedName, .string(label)),
                (SecretServiceAPI.Property.itemAttributes.qualifiedName, .stringDict(attributes)),
            ]),
            .tuple([.objectPath(session), .bytes([]), .bytes(Array(secret.utf8)), .string("text/plain")]),
            .bool(true),
        ]))
        return (try #require(created[0].string), try #require(created[1].string))
    }

    /// The secret of the item at `path` for `sender` in its `session`, or the D-Bus error's name.
    func secret(at path: String, for sender: String, session: String) -> Result<String, ProviderError> {
        call(.getSecret, at: path, from: sender, .tuple([.objectPath(session)])).map { value in
            String(decoding: value?[0][2].bytes ?? [], as: UTF8.self)
        }
    }

    /// `SearchItems` over every collection for `sender`: the unlocked and the locked paths.
    func search(_ sender: String, _ attributes: [(String, String)]) throws -> (unlocked: [String], locked: [String]) {
        let found = try reply(.searchItems, from: sender, .tuple([.stringDict(attributes)]))
        return (found[0].strings ?? [], found[1].strings ?? [])
    }

    /// Whether the prompt at `path` is still open (the provider lists it under `/prompt`).
    func promptIsOpen(_ path: String) -> Bool {
        provider.children(of: ProviderInterface.prompts).contains(String(path.split(separator: "/").last ?? ""))
    }

    /// Runs the prompt at `path` as `sender` and waits (bounded) until it has ended.
    func runPrompt(_ path: String, as sender: String) async throws {
        _ = try call(.prompt, at: path, from: sender, .tuple([.string("")])).get()
        for _ in 0..<1_000 where promptIsOpen(path) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!promptIsOpen(path), "the prompt \(path) did not end")
    }

    @Test func aPlainItemIsStoredFoundAndReadInItsClientsSession() throws {
        let session = try openSession(":1.10")
        let (item, prompt) = try createItem(":1.10", session: session, label: "Plain", attributes: [("service", "plain")], secret: "open")
        #expect(prompt == "/" && item.hasPrefix(Self.login + "/"))
        #expect(try search(":1.11", [("service", "plain")]) == ([item], []))
        #expect(try secret(at: item, for: ":1.10", session: session).get() == "open")
        // Another client's session is not this client's to use.
        #expect(throws: ProviderError.self) { try secret(at: item, for: ":1.11", session: session).get() }
        #expect(secret(at: item, for: ":1.11", session: session).failureName == ProviderInterface.Error.noSession)
    }

    /// An item under a policy is written only after its client's prompt, which the device's
    /// authenticator answers; it is then unlocked for that client alone, and a `Lock` ends that.
    @Test func aProtectedItemIsUnlockedForTheClientWhosePromptSucceededOnly() async throws {
        let owner = ":1.20", other = ":1.21"
        let session = try openSession(owner)
        let attributes = [("service", "guarded"), (ProviderInterface.policyAttribute, ProtectionPolicy.biometryAny.rawValue)]
        let (item, prompt) = try createItem(owner, session: session, label: "Guarded", attributes: attributes, secret: "behind-a-finger")
        #expect(item == "/" && prompt != "/", "a protected item was written without a prompt")
        #expect(try search(owner, [("service", "guarded")]) == ([], []))
        try await runPrompt(prompt, as: owner)
        #expect(device.biometricPromptCount == 1)
        #expect(device.shownPrompts.last?.reason.contains(#"asks to store "Guarded""#) == true, "\(device.shownPrompts)")
        let written = try #require(try search(owner, [("service", "guarded")]).unlocked.first)
        #expect(try secret(at: written, for: owner, session: session).get() == "behind-a-finger")

        let otherSession = try openSession(other)
        #expect(try search(other, [("service", "guarded")]) == ([], [written]))
        #expect(secret(at: written, for: other, session: otherSession).failureName == ProviderInterface.Error.isLocked)

        _ = try reply(.lock, from: other, .tuple([.objectPaths([written])]))
        #expect(try search(owner, [("service", "guarded")]) == ([], [written]), "a Lock of any client locks for every client")
        #expect(secret(at: written, for: owner, session: session).failureName == ProviderInterface.Error.isLocked)
    }

    /// A prompt is its client's: another client cannot run or dismiss it. A dismissed prompt, and one
    /// whose finger does not match, write nothing and unlock nothing.
    @Test func aPromptIsItsClientsAndOneThatFailsChangesNothing() async throws {
        let owner = ":1.30"
        let session = try openSession(owner)
        let attributes = [("service", "kept-out"), (ProviderInterface.policyAttribute, ProtectionPolicy.biometryAny.rawValue)]
        let (_, first) = try createItem(owner, session: session, label: "Kept out", attributes: attributes, secret: "never")
        #expect(call(.prompt, at: first, from: ":1.31", .tuple([.string("")])).failureName == ProviderInterface.Error.noSuchObject)
        #expect(call(.dismiss, at: first, from: ":1.31", .tuple([])).failureName == ProviderInterface.Error.noSuchObject)
        _ = try call(.dismiss, at: first, from: owner, .tuple([])).get()
        #expect(!promptIsOpen(first))

        device.enqueue(.noMatch)
        let (_, second) = try createItem(owner, session: session, label: "Kept out", attributes: attributes, secret: "never")
        try await runPrompt(second, as: owner)
        #expect(try search(owner, [("service", "kept-out")]) == ([], []))
        #expect(device.biometricPromptCount == 1)
    }

    /// A client that leaves the bus loses its sessions and its prompts; its grants end.
    @Test func aClientThatLeavesLosesItsSessionsPromptsAndGrants() async throws {
        let owner = ":1.40"
        let session = try openSession(owner)
        let attributes = [("service", "leaving"), (ProviderInterface.policyAttribute, ProtectionPolicy.biometryAny.rawValue)]
        let (_, prompt) = try createItem(owner, session: session, label: "Leaving", attributes: attributes, secret: "gone")
        try await runPrompt(prompt, as: owner)
        let item = try #require(try search(owner, [("service", "leaving")]).unlocked.first)
        let (_, pending) = try createItem(owner, session: session, label: "Second", attributes: attributes + [("n", "2")], secret: "two")
        provider.peerLeft(owner)
        #expect(!promptIsOpen(pending))
        #expect(secret(at: item, for: owner, session: session).failureName == ProviderInterface.Error.noSession)
        let again = try openSession(owner)
        #expect(secret(at: item, for: owner, session: again).failureName == ProviderInterface.Error.isLocked)
    }

    /// A call of a method the provider does not have, or of another type, is refused by name and changes
    /// nothing.
    @Test func aMalformedCallIsRefusedByName() throws {
        let unknown = RecordedCall(.openSession, at: ProviderInterface.root, from: ":1.50", .tuple([.string("plain")]))
        provider.answer(unknown)
        guard case .failure(let name, let message)? = unknown.answered else {
            Issue.record("OpenSession with (s) was answered: \(String(describing: unknown.answered))")
            return
        }
        #expect(name == ProviderInterface.Error.invalidArgs && message == "OpenSession takes (sv), not (s)")
        #expect(call(.openSession, from: ":1.50", .tuple([.string("rot13"), .variant(.string(""))])).failureName
            == ProviderInterface.Error.notSupported)
        #expect(try search(":1.50", []) == ([], []))
    }
}

extension Result where Failure == ProviderError {
    /// The D-Bus error's name, `nil` for a success.
    var failureName: String? {
        guard case .failure(let error) = self else { return nil }
        return error.name
    }
}
#endif
