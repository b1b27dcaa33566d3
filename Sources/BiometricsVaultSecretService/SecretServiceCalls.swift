#if os(Linux)
// The Secret Service protocol: every call the store makes, through the package's D-Bus layer
// (BiometricsVaultDBus). Everything else in this target talks to `SecretServiceClient`.
//
// Every D-Bus failure is turned into a `VaultError` in `SecretServiceClient.vaultError(_:)`, keeping the
// D-Bus error name (or GIO's domain and code) and message as the cause. No secret ever goes into an error.
//
// What goes over the session bus, and why:
// - The process's shared session bus connection (GIO's one, `DBusConnection.Sharing.processShared`), not libsecret's `SecretService` proxy:
//   the proxy's set-up costs seven round trips to the bus (match rules, name owner, StartServiceByName,
//   GetAll) that no call here needs, about 0.8 ms of a cold start (Docs/Benchmarks.md, "A read through the Secret Service").
//   The first call, a `Collections` property read, may start the provider (D-Bus activation) and is sent
//   before `OpenSession` for gnome-keyring's sake (`introduce(_:_:)`); later calls may not start it.
// - `Service.SearchItems`: one round trip that returns locked and unlocked matches separately and never
//   unlocks (so it never prompts), as libsecret's `secret_service_search_for_dbus_paths_sync` does.
//   `secret_password_lookupv_sync` would try to unlock a locked match, which shows a GUI prompt on a desktop.
// - `Item.Delete`: one round trip, plus its prompt when the provider returns one (KeePassXC).
// - Prompts (`Unlock`, `CreateItem`, `Item.Delete`) are run as the specification says
//   (`Call.completePrompt(_:purpose:)`): subscribe to `Completed`, call `Prompt("")`, wait until the
//   operation's deadline, `Dismiss` when nobody answered.
// The calls that carry secrets use the session this file opens itself (`OpenSession` with
// "dh-ietf1024-sha256-aes128-cbc-pkcs7", crypto in SessionEncryption.swift):
// libsecret's own session costs two full-length 1024-bit exponentiations on every process's first read,
// about 1.5 ms of a 9 ms `show` (Docs/Benchmarks.md). A provider without that algorithm is refused, where
// libsecret would fall back to sending secrets in the clear.
// - `Service.GetSecrets` for one item: one round trip; the secret comes back encrypted with the session's key.
// - `Collection.CreateItem` without `replace` in the default collection, found with `Service.ReadAlias`
//   (not at the alias's path: `Call.defaultCollection()` says why): two round trips. It returns the new
//   item's path (the store then deletes the items found before it) and never creates a missing default
//   collection. Not `replace`: KeePassXC 2.7's prompt for replacing an item another client created never
//   completes (it emits `Completed` for an inner prompt only), so the store replaces by create + delete.
// - Listing: the attributes of many items are read with `Properties.Get` calls sent together
//   (`DBusConnection.pipelinedCalls`), not one round trip after another.
// - Item attributes, the Created time and the collection's Locked flag: `org.freedesktop.DBus.Properties.Get`.
// Every call carries a `DBusCancellation` that a timer cancels at the operation's deadline, so nothing can
// hang for GIO's 25 s default.
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
import CGio  // GLib only: where it looks for the session bus (`sessionBusIsConfigured`); every D-Bus call goes through BiometricsVaultDBus
import Dispatch

/// Attributes of an item: name -> value.
package typealias SecretAttributes = [String: String]

/// The D-Bus paths of the items a search matched, split as the Secret Service reports them.
package struct SearchResult {
    package var unlocked: [String]
    package var locked: [String]

    func merged(with other: SearchResult) -> SearchResult {
        SearchResult(unlocked: unlocked + other.unlocked, locked: locked + other.locked)
    }
}

/// The Secret Service on the session bus, with per-call deadlines and one reconnect-and-retry when the
/// provider went away between calls (daemon restarted, session gone).
final class SecretServiceClient: Sendable {
    let timeout: Duration
    /// Whether a prompt the provider returns is completed (``Call/completePrompt(_:)``) or reported as
    /// `storeLocked` without calling `Prompt()`.
    let prompts: SecretServicePrompts
    /// The process's one connection and DH session with the Secret Service, shared by every client.
    /// Staleness (a restarted provider, a lost bus) is handled in ``perform(_:)``.
    ///
    /// Opening is single-flight: a caller that finds an open in progress (``prepareConnection(timeout:)``'s,
    /// or another thread's) waits for it and shares its outcome, rather than opening a second session. A
    /// failure is not kept: the next caller after it opens again.
    private static let sharedService = LockedValue(SharedService())
    private let service: LockedValue<SharedService>
    /// The bus this client talks to: `nil` is the process's session bus.
    let busAddress: String?

    /// The shared state of the connection to each bus address a client named (tests reach providers on
    /// private buses this way). A list, not a dictionary: the session bus's path never hashes a string.
    private static let addressedServices = LockedValue<[AddressedService]>([])

    private struct AddressedService: Sendable {
        let address: String
        let service: LockedValue<SharedService>
    }

    private static func sharedState(for address: String?) -> LockedValue<SharedService> {
        guard let address else { return sharedService }
        return addressedServices.withLock { services in
            if let known = services.first(where: { $0.address == address }) { return known.service }
            let service = LockedValue(SharedService())
            services.append(AddressedService(address: address, service: service))
            return service
        }
    }

    /// Closed (both `nil`), opening, or open. Two optionals, not an enum with class payloads: such an
    /// enum keeps its case in the pointer's spare bits, and LeakSanitizer then reports the open
    /// handle, reachable only through that tagged pointer, as leaked.
    private struct SharedService {
        var open: ServiceHandle?
        var opening: PendingOpen?
    }

    /// One open in progress: its outcome is set before `done` is left.
    private final class PendingOpen: Sendable {
        let done = DispatchGroup()
        let outcome = LockedValue(OpenOutcome())
    }

    /// The handle, or the error (nothing yet while the open runs). Not a `Result<ServiceHandle, VaultError>`:
    /// creating that type makes the runtime check `VaultError: Error` by scanning every protocol
    /// conformance in the binary, on the way to the first connect. Two optionals, like ``SharedService``.
    private struct OpenOutcome {
        var handle: ServiceHandle?
        var error: VaultError?

        func get() throws(VaultError) -> ServiceHandle {
            if let handle { return handle }
            throw error ?? VaultError(.storeUnavailable, underlying: .message("no answer from the Secret Service in time"))
        }
    }

    static let secretsBusName = "org.freedesktop.secrets"

    init(timeout: Duration, prompts: SecretServicePrompts = .complete, busAddress: String? = nil) {
        self.timeout = timeout
        self.prompts = prompts
        self.busAddress = busAddress
        service = Self.sharedState(for: busAddress)
    }

    // MARK: operations (each is one or a few D-Bus round trips)

    /// Runs `body` with a connected service and a cancellable that fires at the deadline. When the
    /// provider went away (restart, lost session, closed connection), reconnects once and retries.
    func perform<Result>(_ body: (Call) throws(VaultError) -> Result) throws(VaultError) -> Result {
        let deadline = Deadline(after: timeout)
        defer { deadline.finish() }
        var attempt = 0
        while true {
            attempt += 1
            let handle = try connectedService(deadline)
            do {
                return try body(Call(handle: handle, deadline: deadline, timeout: timeout, prompts: prompts))
            } catch let error where attempt == 1 && Self.isStaleConnection(error) && !deadline.isCancelled {
                dropService(handle)
            }
        }
    }

    /// Connects (or reuses the connection); `storeUnavailable` when no bus or no provider answers.
    func connect() throws(VaultError) {
        try connect(by: Deadline(after: timeout))
    }

    private func connect(by deadline: Deadline) throws(VaultError) {
        defer { deadline.finish() }
        _ = try connectedService(deadline)
    }

    /// One operation's view of the service: the calls, all bounded by the same deadline.
    struct Call {
        fileprivate let handle: ServiceHandle
        fileprivate let deadline: Deadline
        let timeout: Duration
        let prompts: SecretServicePrompts
        /// The default collection's path, once this operation has asked for it (a conditional write of an
        /// absent item needs it twice: the lock check, then CreateItem).
        private let defaultCollectionPath = OperationMemo<String>()
        /// What this operation found locked (items, or the default collection), for ``unlock(_:)``.
        let lockedObjects = OperationMemo<[String]>()

        /// The session this operation's secrets travel in (its object path at the provider).
        var sessionPath: String { handle.sessionPath }

        /// Records `objects` as what stands locked in the operation's way, and returns `error`.
        func locked(_ objects: [String], _ error: VaultError) -> VaultError {
            lockedObjects.value = objects
            return error
        }

        /// SearchItems over every collection, by attributes only (no `xdg:schema` is added), never unlocking.
        /// Any sequence of name-value pairs: the read path passes `KeyValuePairs`, because the first
        /// `[String: String]` of a process makes the runtime prove `String: Hashable` by scanning every
        /// protocol conformance in the binary, about 0.06 ms on the read's critical path.
        func search(_ attributes: some Sequence<(key: String, value: String)>) throws(VaultError) -> SearchResult {
            guard let reply = try handle.call(
                SecretServiceClient.servicePath, .searchItems, .tuple([.stringDict(attributes)]), deadline: deadline, timeout: timeout)
            else { throw SecretServiceClient.unexpected("SearchItems: no Secret Service object") }
            return SecretServiceReplies.searchResult(reply)
        }

        /// The secret of one item (the service's GetSecrets, as libsecret and `secret-tool` ask for it),
        /// decrypted with the session's key. A locked item is `storeLocked`; an item that vanished since
        /// the search is `nil`: gnome-keyring's GetSecrets leaves it out, where the item's own GetSecret
        /// fails with UnknownMethod while gnome-keyring is still deleting it (found by Stress/,
        /// 60-stress.sh); KWallet's fails with InvalidArgs "Can't find item at path P", KeePassXC's with
        /// UnknownObject "No such object path 'P'" (found by the conformance suite's reader beside
        /// overwrites).
        func secret(at path: String) throws(VaultError) -> SecretBytes? {
            // No reply: the provider answered that `path` is no such object (``isNoSuchObject(_:)``).
            guard let reply = try handle.call(
                SecretServiceClient.servicePath, .getSecrets, .tuple([.objectPaths([path]), .objectPath(handle.sessionPath)]),
                deadline: deadline, timeout: timeout)
            else { return nil }
            guard let secret = try SecretServiceReplies.encryptedSecret(in: reply, for: path, sessionPath: handle.sessionPath)
            else { return nil }
            // KWallet answers GetSecrets on a closed wallet with an empty value and no error (an
            // encrypted secret is never empty: it has at least one block of padding). Never the item.
            if secret.value.isEmpty {
                if try isLocked(path, .itemLocked) {
                    throw locked([path], VaultError(.storeLocked, underlying: .message("the Secret Service item is locked")))
                }
                throw SecretServiceClient.unexpected("GetSecrets returned an empty value for an unlocked item")
            }
            return try handle.encryption.decrypt(parameters: secret.parameters, value: secret.value)
        }

        /// CreateItem in the default collection (never `replace`: see the top of this file); the secret
        /// goes encrypted with the session's key. Returns the new item's D-Bus path.
        func createItem(
            attributes: SecretAttributes, label: String, secret: SecretBytes, contentType: String
        ) throws(VaultError) -> String {
            let encrypted = try handle.encryption.encrypt(secret)
            let collection = try defaultCollection()
            let reply: DBusValue?
            do throws(VaultError) {
                reply = try handle.call(
                    collection, .createItem,
                    .tuple([
                        .vardict([
                            (SecretServiceAPI.Property.itemLabel.qualifiedName, .string(label)),
                            (SecretServiceAPI.Property.itemAttributes.qualifiedName, .stringDict(attributes.sorted { $0.key < $1.key })),
                        ]),
                        .tuple([
                            .objectPath(handle.sessionPath), .bytes(encrypted.parameters), .bytes(encrypted.value),
                            .string(contentType),
                        ]),
                        .bool(false),
                    ]),
                    deadline: deadline, timeout: timeout)
            } catch where error.isLockedByTheProvider {
                // KWallet answers IsLocked (no prompt) for a closed wallet: unlocking the collection is the way.
                lockedObjects.value = [collection]
                throw error
            }
            guard let reply else { throw Self.noDefaultCollection }
            if let prompt = reply[1].string, prompt != "/" {
                // KeePassXC creates the item only when its prompt is run (with confirmations off, no dialog shows).
                let result = try completePrompt(prompt, purpose: "create the item")
                guard let result, result.typeString == "o", let path = result.string, path != "/"
                else { throw SecretServiceClient.unexpected("CreateItem's prompt completed with no item") }
                return path
            }
            guard let path = reply[0].string, path != "/" else {
                throw SecretServiceClient.unexpected("CreateItem returned no item")
            }
            return path
        }

        /// Deletes one item; an item that is already gone is not an error. A prompt the provider returns
        /// (KeePassXC deletes only then; others to confirm) is completed (``completePrompt(_:purpose:)``).
        func deleteItem(at path: String) throws(VaultError) {
            guard let reply = try handle.call(path, .deleteItem, .tuple([]), deadline: deadline, timeout: timeout)
            else { return }
            if let prompt = reply[0].string, prompt != "/" {
                _ = try completePrompt(prompt, purpose: "delete the item")
            }
        }

        /// Unlocks `objects` (collections or items) with the service's `Unlock`, completing the prompt it
        /// returns: KWallet reports an open wallet's collection locked until a client does this, and its
        /// prompt then completes at once, without a dialog. Under ``SecretServicePrompts/never`` a prompt is
        /// `storeLocked`, never run.
        func unlock(_ objects: [String]) throws(VaultError) {
            guard let reply = try handle.call(
                SecretServiceClient.servicePath, .unlock, .tuple([.objectPaths(objects)]), deadline: deadline, timeout: timeout)
            else { throw SecretServiceClient.unexpected("Unlock: no Secret Service object") }
            if let prompt = reply[1].string, prompt != "/" {
                _ = try completePrompt(prompt, purpose: "unlock the collection")
            }
        }

        /// Runs a prompt the provider returned, per the specification: subscribes to the prompt's
        /// `Completed` signal first, calls `Prompt("")`, and waits for the signal until the operation's
        /// deadline, dismissing the prompt when the time is up. Returns the signal's result (`nil` when
        /// the signal carried none).
        ///
        /// - Throws: `storeLocked` without calling `Prompt()` under ``SecretServicePrompts/never``, and when
        ///   nobody answered in time (a dialog on a display nobody watches, or none at all); `userCancel`
        ///   when the prompt was dismissed (nothing was done).
        func completePrompt(_ prompt: String, purpose: String) throws(VaultError) -> DBusValue? {
            switch prompts {
            case .never:
                throw VaultError(.storeLocked, underlying: .message(
                    "the Secret Service asks for confirmation to \(purpose), and this operation does not prompt: unlock the keyring or open the wallet, then retry"))
            case .complete:
                break
            }
            // The provider's unique name: the signal must come from it, not from any client on the bus.
            guard let ownerReply = try handle.call(
                "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                .tuple([.string(SecretServiceClient.secretsBusName)]), replyType: "(s)",
                deadline: deadline, timeout: timeout, destination: "org.freedesktop.DBus"),
                let owner = ownerReply[0].string
            else { throw SecretServiceClient.unexpected("the Secret Service has no owner on the bus") }

            // Subscribed before `Prompt()`, so a provider that completes it at once (KWallet's `Unlock` of an
            // open wallet, KeePassXC without confirmations) cannot be missed.
            let completed = SecretServiceAPI.Signal.completed
            let completion = handle.connection.subscribe([DBusSignalMatch(
                sender: owner, path: prompt, interface: completed.interface.rawValue, member: completed.member)])
            defer { completion.cancel() }
            var outcome: DBusValue?
            do throws(VaultError) {
                guard try handle.call(prompt, .prompt, .tuple([.string("")]), deadline: deadline, timeout: timeout) != nil
                else { throw SecretServiceClient.unexpected("the Secret Service's prompt \(prompt) does not exist") }
                waiting: while true {
                    switch completion.next(until: nil, cancellation: deadline.cancellation) {
                    case .signal(let signal):
                        guard signal.parameters.typeString == "(bv)" else { continue waiting }
                        outcome = signal.parameters
                        break waiting
                    case .timedOut, .cancelled:
                        break waiting
                    }
                }
            } catch {
                dismiss(prompt)
                if deadline.isCancelled { throw Self.unansweredPrompt(purpose, timeout) }
                throw error
            }
            guard let outcome else {
                dismiss(prompt)
                throw Self.unansweredPrompt(purpose, timeout)
            }
            if outcome[0].bool == true {
                throw VaultError(.userCancel, underlying: .message("the Secret Service's prompt to \(purpose) was dismissed (by the user, or by a provider that could not show it: no display); nothing was changed"))
            }
            return outcome[1].unboxed
        }

        private static func unansweredPrompt(_ purpose: String, _ timeout: Duration) -> VaultError {
            VaultError(.storeLocked, underlying: .message(
                "the Secret Service's prompt to \(purpose) was not answered within \(SecretServiceClient.milliseconds(timeout)) ms: answer it in the provider's window (or unlock the keyring, open the wallet, turn off the provider's confirmation), then retry"))
        }

        /// `Prompt.Dismiss`, bounded on its own (the operation's deadline may be over): best effort, a
        /// provider that already dropped the prompt answers an error that changes nothing.
        private func dismiss(_ prompt: String) {
            let bound = Deadline(after: min(timeout, .seconds(1)))
            defer { bound.finish() }
            _ = try? handle.call(prompt, .dismiss, .tuple([]), deadline: bound, timeout: min(timeout, .seconds(1)))
        }

        /// The item's attributes (Properties.Get), or `nil` when the item vanished meanwhile.
        func attributes(at path: String) throws(VaultError) -> SecretAttributes? {
            guard let value = try property(path, .itemAttributes)
            else { return nil }
            return SecretServiceReplies.attributes(value)
        }

        /// The attributes of each of `paths` (`nil` for an item that vanished meanwhile), in order. The
        /// `Properties.Get` calls are sent together and their answers collected as they come
        /// (`DBusConnection.pipelinedCalls`), so 10,000 items cost one wait instead of 10,000 round trips.
        ///
        /// Bounded per answer: each call fails after the store's timeout, and the first failure stops the
        /// batch, so a provider that stops answering fails it within one timeout. In total, by `deadline`
        /// when given (a listing's, which grows with the item count: one deadline of the store's timeout
        /// refused gnome-keyring's 4,000 items, answered at about 0.2 to 1 ms each).
        func attributes(of paths: [String], within deadline: Deadline? = nil) throws(VaultError) -> [SecretAttributes?] {
            if paths.count == 1, deadline == nil { return [try attributes(at: paths[0])] }
            let replies: [DBusValue?]
            do throws(DBusFailure) {
                replies = try handle.connection.pipelinedCalls(
                    paths.map {
                        DBusMethod(destination: SecretServiceClient.secretsBusName, path: $0,
                                   interface: "org.freedesktop.DBus.Properties", member: "Get")
                    },
                    arguments: { _ in
                        .tuple([.string(SecretServiceAPI.Property.itemAttributes.interface.rawValue), .string(SecretServiceAPI.Property.itemAttributes.name)])
                    },
                    replyType: "(v)", autoStart: false, window: SecretServiceClient.pipelineWindow, timeout: timeout,
                    cancellation: deadline?.cancellation, tolerating: SecretServiceClient.isNoSuchObject)
            } catch {
                throw SecretServiceClient.vaultError(error)
            }
            return replies.map { reply -> SecretAttributes? in
                guard let reply else { return nil }
                return SecretServiceReplies.attributes(reply[0].unboxed)
            }
        }

        /// The item's creation time (seconds since the epoch), or `nil` when it vanished meanwhile.
        func created(at path: String) throws(VaultError) -> UInt64? {
            guard let value = try property(path, .itemCreated)
            else { return nil }
            return value.uint64 ?? 0
        }

        /// Whether the default collection is locked. No default collection is `storeUnavailable`.
        func defaultCollectionIsLocked() throws(VaultError) -> Bool {
            try isLocked(try defaultCollection(), .collectionLocked)
        }

        /// The `Locked` property (`locked`: the collection's or the item's) of a collection or item; one
        /// that vanished is `storeUnavailable`.
        func isLocked(_ path: String, _ locked: SecretServiceAPI.Property) throws(VaultError) -> Bool {
            guard let value = try property(path, locked)
            else { throw locked == .collectionLocked ? Self.noDefaultCollection : SecretServiceClient.unexpected("the item vanished") }
            return value.bool ?? false
        }

        /// The default collection's own path, from `ReadAlias("default")`.
        ///
        /// Why not address `/org/freedesktop/secrets/aliases/default`, as libsecret and python keyring do:
        /// gnome-keyring 42 rewrites an alias path on its D-Bus worker thread, reading the alias's name while
        /// its main thread replaces that string (and frees the old one) each time a new client connects. A
        /// call to the alias can then reach a path built from freed memory: python keyring failed with
        /// "Object does not exist at path /org/freedesktop/secrets/collection/l_d7K_da_8c" in this package's
        /// parallel test run. `ReadAlias` is answered on the main thread, so it reads the name safely.
        func defaultCollection() throws(VaultError) -> String {
            if let known = defaultCollectionPath.value { return known }
            guard let reply = try handle.call(
                SecretServiceClient.servicePath, .readAlias, .tuple([.string("default")]), deadline: deadline, timeout: timeout)
            else { throw SecretServiceClient.unexpected("ReadAlias: no Secret Service object") }
            guard let path = reply[0].string, path != "/" else { throw Self.noDefaultCollection }
            defaultCollectionPath.value = path
            return path
        }

        static let noDefaultCollection = VaultError(
            .storeUnavailable, underlying: .message(
                "the Secret Service has no default collection (ReadAlias(\"default\") answers \"/\"): point the alias at a collection "
                    + "(gnome-keyring: create the login keyring; KeePassXC: open a database and expose a group in its Secret Service "
                    + "Integration settings; KWallet: create and open the default wallet)"))

        /// Properties.Get, the value unboxed; `nil` when the object does not exist.
        private func property(_ path: String, _ property: SecretServiceAPI.Property) throws(VaultError) -> DBusValue? {
            guard let reply = try handle.call(
                path, "org.freedesktop.DBus.Properties", "Get", .tuple([.string(property.interface.rawValue), .string(property.name)]),
                replyType: "(v)", deadline: deadline, timeout: timeout)
            else { return nil }
            return reply[0].unboxed
        }
    }

    // MARK: connection

    /// Starts opening the process's service on another thread and returns at once, so that the caller's
    /// own work (parsing a command line, say) overlaps the connection and the DH session setup. An
    /// operation that starts meanwhile waits for this open (at most until its own deadline) and shares its
    /// outcome, error included; a failure is not kept, so later operations open again.
    ///
    /// One plain thread (``DedicatedThread``), not a dispatch queue: the first `async` to a global queue
    /// also starts libdispatch's root-queue workers, and at process start those thread creations delayed
    /// the connection by about 0.15 ms (Docs/Benchmarks.md). When no thread can be started, nothing is
    /// prepared and the first operation opens the service itself.
    ///
    /// The open's deadline is armed here, after the thread starts: the process's first dispatch timer
    /// also starts libdispatch's manager thread, which delayed the connection by about 0.05 ms when the
    /// connecting thread armed it (Docs/Benchmarks.md). The end of the deadline is fixed before either.
    static func prepareConnection(timeout: Duration) {
        let deadline = Deadline(after: timeout, armed: false)
        let client = SecretServiceClient(timeout: timeout)
        let started = DedicatedThread.start(name: "secret-connect") {
            try? client.connect(by: deadline)
        }
        if started == 0 {
            deadline.arm()
            // The session's key pair, made here while the other thread connects, instead of on that
            // thread after the connection: about 0.2 ms of a cold start (Docs/Benchmarks.md). The
            // connecting thread makes its own if it gets there first.
            if let keyPair = try? SessionEncryption.KeyPair() {
                preparedKeyPair.withLock { if $0 == nil { $0 = keyPair } }
            }
            SessionEncryption.prepareFirstUse()
        }
    }

    /// A key pair ``prepareConnection(timeout:)`` made for the next session; the open that uses it clears
    /// it, so no key pair serves two sessions.
    private static let preparedKeyPair = LockedValue<SessionEncryption.KeyPair?>(nil)

    private enum ConnectStep {
        case use(ServiceHandle)
        case wait(PendingOpen)
        case open(PendingOpen)
    }

    private func connectedService(_ deadline: Deadline) throws(VaultError) -> ServiceHandle {
        let step = service.withLock { state -> ConnectStep in
            if let handle = state.open { return .use(handle) }
            if let pending = state.opening { return .wait(pending) }
            let pending = PendingOpen()
            pending.done.enter()
            state.opening = pending
            return .open(pending)
        }
        switch step {
        case .use(let handle):
            return handle
        case .wait(let pending):
            // Bounded by this caller's own deadline, whatever the opener's is.
            guard pending.done.wait(timeout: deadline.end) == .success else {
                throw VaultError(.storeUnavailable, underlying: .message("no answer from the Secret Service in time"))
            }
            return try pending.outcome.withLock { $0 }.get()
        case .open(let pending):
            var outcome = OpenOutcome()
            do throws(VaultError) {
                outcome.handle = try openService(deadline)
            } catch {
                outcome.error = error
            }
            service.withLock { state in
                state.opening = nil
                if let handle = outcome.handle { state.open = handle }
            }
            pending.outcome.withLock { $0 = outcome }
            pending.done.leave()
            return try outcome.get()
        }
    }

    private func dropService(_ handle: ServiceHandle) {
        // The next call opens a fresh session with the new daemon.
        service.withLock { state in
            if state.open === handle { state.open = nil }
        }
    }

    func openService(_ deadline: Deadline) throws(VaultError) -> ServiceHandle {
        // Always on the session bus of the process environment (or the address given), at the Secret
        // Service's well-known name; the session is ours (SessionEncryption.swift).
        //
        // Bounded by the operation's own timeout, not a shorter one: a bus that is only slow (dbus-daemon is
        // single-threaded: many clients connecting at once on a loaded machine can wait seconds) is not an
        // absent one. An address where nothing listens fails at once (`serviceMissing`) anyway.
        let connection: DBusConnection
        do throws(DBusFailure) {
            connection = try DBusConnection(
                busAddress.map { .address($0) } ?? .session, sharing: .processShared, timeout: timeout,
                cancellation: deadline.cancellation)
        } catch {
            if error.kind == .timedOut || (error.kind == .cancelled && deadline.isCancelled) {
                let bus = busAddress ?? (EnvironmentVariable.isSet("DBUS_SESSION_BUS_ADDRESS") ? "DBUS_SESSION_BUS_ADDRESS" : "$XDG_RUNTIME_DIR/bus")
                throw VaultError(.storeUnavailable, underlying: error.underlying(message:
                    "the session bus (\(bus)) did not answer within \(Self.milliseconds(timeout)) ms"))
            }
            throw Self.vaultError(error)
        }
        do throws(VaultError) {
            let prepared = Self.preparedKeyPair.withLock { slot in
                defer { slot = nil }
                return slot
            }
            var keyPair: SessionEncryption.KeyPair
            if let prepared { keyPair = prepared } else { keyPair = try SessionEncryption.KeyPair() }
            try introduce(connection, deadline)
            // A session whose key depends on how wide the provider takes the shared secret is closed and
            // another opened with a fresh key pair (SessionEncryption.keyDependsOnSecretWidth): one in 256
            // opens takes a second, and eight in a row have a chance of 2^-64.
            for _ in 1...8 {
                guard let reply = try Self.call(
                    connection, Self.servicePath, .openSession,
                    .tuple([.string(SessionEncryption.algorithm), .variant(.bytes(keyPair.publicKey))]), deadline: deadline, timeout: timeout)
                else { throw Self.unexpected("OpenSession: no Secret Service object") }
                let (output, sessionPath) = try SecretServiceReplies.openedSession(reply)
                let encryption = try SessionEncryption(peerPublicKey: output, keyPair: keyPair)
                guard encryption.keyDependsOnSecretWidth else {
                    return ServiceHandle(connection, sessionPath: sessionPath, encryption: encryption)
                }
                // Closing is courtesy (the provider also drops it with the connection): its failure changes nothing.
                _ = try? Self.call(connection, sessionPath, .closeSession, .tuple([]), deadline: deadline, timeout: timeout)
                keyPair = try SessionEncryption.KeyPair()
            }
            throw Self.unexpected("OpenSession: eight sessions in a row had a shared secret with a leading zero byte")
        } catch {
            // A provider without this algorithm answers NotSupported: say what is missing, since the
            // fallback libsecret would take (secrets in the clear) is refused here.
            if DBusFailure(recordedIn: error.underlying)?.name == "org.freedesktop.DBus.Error.NotSupported" {
                throw VaultError(.storeUnavailable, underlying: .message(
                    "the Secret Service offers no encrypted session (\(SessionEncryption.algorithm)); secrets are never sent in the clear. "
                        + "KWallet needs its QCA crypto plugin for it (Debian: libqca-qt5-2-plugins); restart kwalletd after installing it"))
            }
            throw error
        }
    }

    /// The connection's first call to the provider: it reads the service's `Collections` property, and may
    /// start the provider (D-Bus activation); later calls may not.
    ///
    /// Why a call before `OpenSession`: gnome-keyring 42 records a new client only after it has handled
    /// the client's first message, and aborts the whole daemon ("gkd_secret_service_get_pkcs11_session:
    /// assertion 'client' failed") when that first message is `OpenSession` and the record is not there
    /// yet: about once in 3,000 cold starts under `scripts/stress-cold-start.sh`. A provider that refuses the property read
    /// (it is required by the specification, but answering is all this call is for) is not an error.
    private func introduce(_ connection: DBusConnection, _ deadline: Deadline) throws(VaultError) {
        do throws(VaultError) {
            _ = try Self.call(
                connection, Self.servicePath, "org.freedesktop.DBus.Properties", "Get",
                .tuple([.string(SecretServiceAPI.Property.collections.interface.rawValue), .string(SecretServiceAPI.Property.collections.name)]),
                replyType: "(v)", deadline: deadline, timeout: timeout, autoStart: true)
        } catch {
            guard error.isRefusalByTheProvider else { throw error }
        }
    }

    static let servicePath = "/org/freedesktop/secrets"
    /// Attribute reads of a listing not yet answered at any time: enough to keep the provider busy, and
    /// well below dbus-daemon's per-connection limit of pending replies (128 on a bus whose configuration
    /// sets none).
    static let pipelineWindow = 64

    /// `method` of the Secret Service API on the object at `path`, its reply of the method's type; `nil`
    /// when the object does not exist.
    fileprivate static func call(
        _ connection: DBusConnection, _ path: String, _ method: SecretServiceAPI.Method, _ arguments: DBusArgument,
        deadline: Deadline, timeout: Duration
    ) throws(VaultError) -> DBusValue? {
        try call(
            connection, path, method.interface.rawValue, method.member, arguments, replyType: method.replyType, deadline: deadline,
            timeout: timeout)
    }

    /// One D-Bus call to the Secret Service on `connection`; `nil` when the object does not exist.
    fileprivate static func call(
        _ connection: DBusConnection, _ path: String, _ interface: String, _ method: String, _ arguments: DBusArgument,
        replyType: String, deadline: Deadline, timeout: Duration, autoStart: Bool = false,
        destination: String = secretsBusName
    ) throws(VaultError) -> DBusValue? {
        do throws(DBusFailure) {
            return try connection.call(
                DBusMethod(destination: destination, path: path, interface: interface, member: method), arguments,
                replyType: replyType, autoStart: autoStart, timeout: timeout, cancellation: deadline.cancellation)
        } catch where isNoSuchObject(error) {
            return nil
        } catch {
            throw vaultError(error)
        }
    }

    // MARK: error mapping (the one place)

    /// The Secret Service reported that the object (item, collection, alias) does not exist: its own
    /// `NoSuchObject`, or gnome-keyring's `UnknownMethod` / `UnknownObject` "Object does not exist at
    /// path", or `UnknownMethod` "No such interface Properties" for an item deleted meanwhile (the layer
    /// classifies those). Another `UnknownObject` is not this: it counts as a stale connection
    /// (``isStaleConnection(_:)``), after which a new session works (KWallet's closed wallet needs that).
    static func isNoSuchObject(_ failure: DBusFailure) -> Bool {
        failure.kind == .noSuchObject
            && (failure.name == "org.freedesktop.Secret.Error.NoSuchObject"
                || failure.name == "org.freedesktop.DBus.Error.UnknownMethod"
                || failure.message.contains("does not exist"))
            || namesVanishedItem(failure)
    }

    /// KWallet's and KeePassXC's answers about an item deleted meanwhile (another client's replace):
    /// InvalidArgs "Can't find item at path P", UnknownObject "No such object path 'P'", UnknownInterface
    /// "Interface org.freedesktop.Secret.Item was not found in object P", with P an item's path (a
    /// collection's or a session's is not this: see ``isStaleConnection(_:)``).
    static func namesVanishedItem(_ failure: DBusFailure) -> Bool {
        let names = ["org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface"]
        guard failure.isRemote, names.contains(failure.name),
            let collections = failure.message.firstRange(of: "/org/freedesktop/secrets/collection/")
        else { return false }
        let path = failure.message[collections.upperBound...].prefix { $0 != "'" && $0 != "\"" && !$0.isWhitespace }
        return path.split(separator: "/").count == 2
    }

    /// What the Secret Service's failures mean: `IsLocked` is `storeLocked`; everything else means the
    /// store cannot do the job now (no bus, no provider, lost session, protocol errors, missing
    /// collection). `isStaleConnection` and the `VaultError` checks below refine it.
    static let errorMapping = DBusErrorMapping(kinds: [.locked: .storeLocked], otherwise: .storeUnavailable)

    /// Maps a D-Bus failure. Cancellation can only come from our deadline: it is a timeout.
    static func vaultError(_ failure: DBusFailure) -> VaultError {
        if failure.kind == .cancelled {
            return VaultError(.storeUnavailable, underlying: failure.underlying(message: "no answer from the Secret Service in time"))
        }
        return failure.vaultError(errorMapping)
    }

    /// Whether `error` shows there is definitely no Secret Service: nothing listening at the bus address
    /// (no socket, ECONNREFUSED) or no provider owning or activatable for `org.freedesktop.secrets`
    /// (`ServiceUnknown`, `NameHasNoOwner`): `DBusFailure.Kind.serviceMissing`. With no session bus
    /// configured (``sessionBusIsConfigured``), GLib's only way left is X11 autolaunch, whose failures are
    /// local ones ("Cannot autolaunch D-Bus without X11 $DISPLAY", a spawn error): those are absence too.
    /// A timeout, a disconnection or any error of a bus or provider that answered is not.
    static func isAbsence(_ error: VaultError, sessionBusIsConfigured: Bool) -> Bool {
        guard error.code == .storeUnavailable, let failure = DBusFailure(recordedIn: error.underlying) else { return false }
        switch failure.kind {
        case .serviceMissing: return true
        case .local: return !sessionBusIsConfigured
        case .timedOut, .cancelled, .disconnected, .noSuchObject, .refused, .accessDenied, .locked, .noSession, .remote:
            return false
        }
    }

    /// Whether GLib has a session bus address to connect to without X11 autolaunch: `DBUS_SESSION_BUS_ADDRESS`,
    /// else `$XDG_RUNTIME_DIR/bus` when it exists (GLib's order).
    static var sessionBusIsConfigured: Bool {
        if EnvironmentVariable.isSet("DBUS_SESSION_BUS_ADDRESS") { return true }
        guard let runtime = EnvironmentVariable.value("XDG_RUNTIME_DIR"), !runtime.isEmpty else { return false }
        return g_file_test(runtime + "/bus", G_FILE_TEST_EXISTS) != 0
    }

    static func unexpected(_ what: String) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message(what))
    }

    /// The provider answered that it does not know our session (``DBusFailure/Kind/noSession``).
    static func isLostSession(_ error: VaultError) -> Bool {
        DBusFailure(recordedIn: error.underlying)?.kind == .noSession
    }

    /// Errors after which a fresh connection and session may succeed (daemon restarted, bus reconnected).
    static func isStaleConnection(_ error: VaultError) -> Bool {
        guard error.code == .storeUnavailable, let failure = DBusFailure(recordedIn: error.underlying) else { return false }
        guard failure.isRemote else { return failure.kind == .disconnected }
        return failure.kind == .noSession || staleConnectionErrors.contains(failure.name)
    }

    /// The peer's (or the bus's) errors after which a new connection and session may work: the provider
    /// left (NoReply for a call it did not answer), or dropped our session (``DBusFailure/Kind/noSession``,
    /// whatever name the provider gives it) or its objects (UnknownObject).
    private static let staleConnectionErrors: Set<String> = [
        "org.freedesktop.DBus.Error.Disconnected",
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.UnknownObject",
        "org.freedesktop.DBus.Error.NoServer",
    ]

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

extension VaultError {
    /// The provider answered `org.freedesktop.Secret.Error.IsLocked` (KWallet's `CreateItem` on a closed wallet).
    fileprivate var isLockedByTheProvider: Bool {
        code == .storeLocked && DBusFailure(recordedIn: underlying)?.kind == .locked
    }

    /// A provider's answer that it does not know the method, interface, property or object asked for,
    /// or takes the arguments for invalid: it is there and answered (the bus's own errors, such as
    /// `ServiceUnknown`, are not this).
    fileprivate var isRefusalByTheProvider: Bool {
        guard let failure = DBusFailure(recordedIn: underlying), failure.isRemote else { return false }
        return failure.name.hasPrefix("org.freedesktop.DBus.Error.Unknown") || failure.name == "org.freedesktop.DBus.Error.InvalidArgs"
    }
}

// MARK: the connection and the deadline

/// The connection the store uses, and the encrypted session this process opened on it.
final class ServiceHandle: Sendable {
    let connection: DBusConnection
    let sessionPath: String
    let encryption: SessionEncryption

    init(_ connection: DBusConnection, sessionPath: String, encryption: SessionEncryption) {
        self.connection = connection
        self.sessionPath = sessionPath
        self.encryption = encryption
    }

    /// A call to the Secret Service on this connection (see `SecretServiceClient.call`).
    func call(
        _ path: String, _ interface: String, _ method: String, _ arguments: DBusArgument,
        replyType: String, deadline: Deadline, timeout: Duration, destination: String = SecretServiceClient.secretsBusName
    ) throws(VaultError) -> DBusValue? {
        try SecretServiceClient.call(
            connection, path, interface, method, arguments, replyType: replyType, deadline: deadline, timeout: timeout,
            destination: destination)
    }

    /// `method` of the Secret Service API on the object at `path`, its reply of the method's type; `nil`
    /// when the object does not exist.
    func call(
        _ path: String, _ method: SecretServiceAPI.Method, _ arguments: DBusArgument, deadline: Deadline, timeout: Duration
    ) throws(VaultError) -> DBusValue? {
        try SecretServiceClient.call(connection, path, method, arguments, deadline: deadline, timeout: timeout)
    }
}

/// A value one operation (one ``SecretServiceClient/Call``, used by one thread) computes once and reuses.
final class OperationMemo<Value> {
    var value: Value?
}

/// A ``DBusCancellation`` that a timer cancels when the operation's time is up: every call of the
/// operation carries it.
///
/// @unchecked Sendable: every stored property is immutable; the cancellation is Sendable, and the
/// timer's `DispatchWorkItem` (not marked Sendable) is only scheduled and cancelled, both of which
/// libdispatch documents as safe from any thread.
final class Deadline: @unchecked Sendable {
    let cancellation: DBusCancellation
    /// When the timer cancels: the limit for waiting on another caller's open, too.
    let end: DispatchTime
    private let timer: DispatchWorkItem

    /// A deadline `timeout` from now; unless `armed` is false, its timer is armed at once (else ``arm()``).
    init(after timeout: Duration, armed: Bool = true) {
        // Every Secret Service call starts with a deadline: DBusCancellation prepares GIO's types for
        // this thread's first GIO call.
        let cancellation = DBusCancellation()
        self.cancellation = cancellation
        timer = DispatchWorkItem { cancellation.cancel() }
        let nanoseconds = Int(clamping: SecretServiceClient.milliseconds(timeout)) * 1_000_000
        end = .now() + .nanoseconds(nanoseconds)
        if armed { arm() }
    }

    /// Arms the timer for `end` (once). After ``finish()`` the cancelled timer never fires.
    func arm() {
        DispatchQueue.global().asyncAfter(deadline: end, execute: timer)
    }

    var isCancelled: Bool { cancellation.isCancelled }

    func finish() { timer.cancel() }

    deinit { timer.cancel() }
}
#endif
