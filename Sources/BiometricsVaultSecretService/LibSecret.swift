#if os(Linux)
// The one file that calls libsecret / GLib. Everything else in this target talks to `LibSecretClient`.
//
// Every GError is turned into a `VaultError` in `LibSecretClient.vaultError(_:)`, keeping the GError's
// domain, code and message as `.gError(domain:code:message:)`. No secret ever goes into an error.
//
// What goes over the session bus, and why:
// - The process's shared session bus connection (`g_bus_get_sync`), not libsecret's `SecretService` proxy:
//   the proxy's set-up costs seven round trips to the bus (match rules, name owner, StartServiceByName,
//   GetAll) that no call here needs, about 0.8 ms of a cold start (Docs/Benchmarks.md, tenth round).
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
//   (`PipelinedCalls`), not one round trip after another.
// - Item attributes, the Created time and the collection's Locked flag: `org.freedesktop.DBus.Properties.Get`.
// Every call carries a `GCancellable` that a timer cancels at the operation's deadline, so nothing can
// hang for GDBus's 25 s default.
import BiometricsVaultCore
import BiometricsVaultGLib
import CGio  // GLib's and GIO's declarations (CLibSecret's header includes them too)
import CLibSecret
import Dispatch

/// Attributes of an item: name -> value.
typealias SecretAttributes = [String: String]

/// The D-Bus paths of the items a search matched, split as the Secret Service reports them.
struct SearchResult {
    var unlocked: [String]
    var locked: [String]

    func merged(with other: SearchResult) -> SearchResult {
        SearchResult(unlocked: unlocked + other.unlocked, locked: locked + other.locked)
    }
}

/// The Secret Service on the session bus, with per-call deadlines and one reconnect-and-retry when the
/// provider went away between calls (daemon restarted, session gone).
final class LibSecretClient: Sendable {
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
    /// How long connecting to the bus itself (not the provider) may take.
    static let busConnectionBound = Duration.milliseconds(500)

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
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems",
                tuple([makeStringPairsVariant(attributes)]), replyType: "(aoao)", deadline: deadline, timeout: timeout)
            else { throw LibSecretClient.unexpected("SearchItems: no Secret Service object") }
            defer { g_variant_unref(reply) }
            return SearchResult(unlocked: objectPaths(reply, 0), locked: objectPaths(reply, 1))
        }

        /// The secret of one item (the service's GetSecrets, as libsecret and `secret-tool` ask for it),
        /// decrypted with the session's key. A locked item is `storeLocked`; an item that vanished since
        /// the search is `nil`: GetSecrets leaves it out, where the item's own GetSecret fails with
        /// UnknownMethod while gnome-keyring is still deleting it (found by Stress/, 60-stress.sh).
        func secret(at path: String) throws(VaultError) -> SecretBytes? {
            let items = withCStringArray([path]) { g_variant_new_objv($0, 1) }
            guard let reply = try handle.call(
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "GetSecrets",
                tuple([items, g_variant_new_object_path(handle.sessionPath)]),
                replyType: "(a{o(oayays)})", deadline: deadline, timeout: timeout)
            else { throw LibSecretClient.unexpected("GetSecrets: no Secret Service object") }
            defer { g_variant_unref(reply) }
            guard let secrets = g_variant_get_child_value(reply, 0) else { return nil }
            defer { g_variant_unref(secrets) }
            for index in 0..<g_variant_n_children(secrets) {
                guard let entry = g_variant_get_child_value(secrets, index) else { continue }
                defer { g_variant_unref(entry) }
                guard stringChild(entry, 0) == path, let secret = g_variant_get_child_value(entry, 1) else { continue }
                defer { g_variant_unref(secret) }
                guard stringChild(secret, 0) == handle.sessionPath else {
                    throw LibSecretClient.unexpected("GetSecrets answered for another session")
                }
                let value = bytesChild(secret, 2)
                // KWallet answers GetSecrets on a closed wallet with an empty value and no error (an
                // encrypted secret is never empty: it has at least one block of padding). Never the item.
                if value.isEmpty {
                    if try isLocked(path, interface: "org.freedesktop.Secret.Item") {
                        throw locked([path], VaultError(.storeLocked, underlying: .message("the Secret Service item is locked")))
                    }
                    throw LibSecretClient.unexpected("GetSecrets returned an empty value for an unlocked item")
                }
                return try handle.encryption.decrypt(parameters: bytesChild(secret, 1), value: value)
            }
            return nil
        }

        /// CreateItem in the default collection (never `replace`: see the top of this file); the secret
        /// goes encrypted with the session's key. Returns the new item's D-Bus path.
        func createItem(
            attributes: SecretAttributes, label: String, secret: SecretBytes, contentType: String
        ) throws(VaultError) -> String {
            let entryType = g_variant_type_new("{sv}")
            defer { g_variant_type_free(entryType) }
            let entries: [OpaquePointer?] = [
                g_variant_new_dict_entry(
                    g_variant_new_string("org.freedesktop.Secret.Item.Label"), g_variant_new_variant(g_variant_new_string(label))),
                g_variant_new_dict_entry(
                    g_variant_new_string("org.freedesktop.Secret.Item.Attributes"),
                    g_variant_new_variant(makeStringPairsVariant(attributes.sorted { $0.key < $1.key }))),
            ]
            let properties = entries.withUnsafeBufferPointer { g_variant_new_array(entryType, $0.baseAddress, 2) }
            let encrypted = try handle.encryption.encrypt(secret)
            let value = tuple([
                g_variant_new_object_path(handle.sessionPath), byteArray(encrypted.parameters), byteArray(encrypted.value),
                g_variant_new_string(contentType),
            ])
            let parameters = tuple([properties, value, g_variant_new_boolean(0)])
            let collection = try defaultCollection()
            let reply: OpaquePointer?
            do throws(VaultError) {
                reply = try handle.call(
                    collection, "org.freedesktop.Secret.Collection", "CreateItem", parameters,
                    replyType: "(oo)", deadline: deadline, timeout: timeout)
            } catch where error.isLockedByTheProvider {
                // KWallet answers IsLocked (no prompt) for a closed wallet: unlocking the collection is the way.
                lockedObjects.value = [collection]
                throw error
            }
            guard let reply else { throw Self.noDefaultCollection }
            defer { g_variant_unref(reply) }
            if let prompt = stringChild(reply, 1), prompt != "/" {
                // KeePassXC creates the item only when its prompt is run (with confirmations off, no dialog shows).
                let result = try completePrompt(prompt, purpose: "create the item")
                defer { if let result { g_variant_unref(result) } }
                guard let result, String(cString: g_variant_get_type_string(result)) == "o",
                    let text = g_variant_get_string(result, nil), String(cString: text) != "/"
                else { throw LibSecretClient.unexpected("CreateItem's prompt completed with no item") }
                return String(cString: text)
            }
            guard let path = stringChild(reply, 0), path != "/" else {
                throw LibSecretClient.unexpected("CreateItem returned no item")
            }
            return path
        }

        /// Deletes one item; an item that is already gone is not an error. A prompt the provider returns
        /// (KeePassXC deletes only then; others to confirm) is completed (``completePrompt(_:purpose:)``).
        func deleteItem(at path: String) throws(VaultError) {
            guard let reply = try handle.call(
                path, "org.freedesktop.Secret.Item", "Delete", tuple([]), replyType: "(o)", deadline: deadline, timeout: timeout)
            else { return }
            defer { g_variant_unref(reply) }
            if let prompt = stringChild(reply, 0), prompt != "/" {
                let result = try completePrompt(prompt, purpose: "delete the item")
                if let result { g_variant_unref(result) }
            }
        }

        /// Unlocks `objects` (collections or items) with the service's `Unlock`, completing the prompt it
        /// returns: KWallet reports an open wallet's collection locked until a client does this, and its
        /// prompt then completes at once, without a dialog. Under ``SecretServicePrompts/never`` a prompt is
        /// `storeLocked`, never run.
        func unlock(_ objects: [String]) throws(VaultError) {
            let paths = withCStringArray(objects) { g_variant_new_objv($0, gssize(objects.count)) }
            guard let reply = try handle.call(
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Unlock", tuple([paths]),
                replyType: "(aoo)", deadline: deadline, timeout: timeout)
            else { throw LibSecretClient.unexpected("Unlock: no Secret Service object") }
            defer { g_variant_unref(reply) }
            if let prompt = stringChild(reply, 1), prompt != "/" {
                let result = try completePrompt(prompt, purpose: "unlock the collection")
                if let result { g_variant_unref(result) }
            }
        }

        /// Runs a prompt the provider returned, per the specification: subscribes to the prompt's
        /// `Completed` signal first, calls `Prompt("")`, and waits for the signal until the operation's
        /// deadline, dismissing the prompt when the time is up. Returns the signal's result (a new
        /// reference, or `nil`).
        ///
        /// - Throws: `storeLocked` without calling `Prompt()` under ``SecretServicePrompts/never``, and when
        ///   nobody answered in time (a dialog on a display nobody watches, or none at all); `userCancel`
        ///   when the prompt was dismissed (nothing was done).
        func completePrompt(_ prompt: String, purpose: String) throws(VaultError) -> OpaquePointer? {
            switch prompts {
            case .never:
                throw VaultError(.storeLocked, underlying: .message(
                    "the Secret Service asks for confirmation to \(purpose), and this operation does not prompt: unlock the keyring or open the wallet, then retry"))
            case .complete:
                break
            }
            // The provider's unique name: the signal must come from it, not from any client on the bus.
            guard let ownerReply = try LibSecretClient.call(
                handle.connection, "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                tuple([g_variant_new_string(LibSecretClient.secretsBusName)]), replyType: "(s)",
                deadline: deadline, timeout: timeout, destination: "org.freedesktop.DBus"),
                let owner = stringChild(ownerReply, 0)
            else { throw LibSecretClient.unexpected("the Secret Service has no owner on the bus") }
            g_variant_unref(ownerReply)

            let waiter = PromptWaiter(handle.connection, prompt: prompt, sender: owner)
            defer { waiter.close() }
            do throws(VaultError) {
                if let reply = try handle.call(
                    prompt, "org.freedesktop.Secret.Prompt", "Prompt", tuple([g_variant_new_string("")]),
                    replyType: "()", deadline: deadline, timeout: timeout)
                {
                    g_variant_unref(reply)
                } else {
                    throw LibSecretClient.unexpected("the Secret Service's prompt \(prompt) does not exist")
                }
                try waiter.wait(until: deadline)
            } catch {
                dismiss(prompt)
                if deadline.isCancelled { throw Self.unansweredPrompt(purpose, timeout) }
                throw error
            }
            guard let outcome = waiter.outcome else {
                dismiss(prompt)
                throw Self.unansweredPrompt(purpose, timeout)
            }
            if outcome.dismissed {
                if let result = outcome.result { g_variant_unref(result) }
                throw VaultError(.userCancel, underlying: .message("the Secret Service's prompt to \(purpose) was dismissed (by the user, or by a provider that could not show it: no display); nothing was changed"))
            }
            return outcome.result
        }

        private static func unansweredPrompt(_ purpose: String, _ timeout: Duration) -> VaultError {
            VaultError(.storeLocked, underlying: .message(
                "the Secret Service's prompt to \(purpose) was not answered within \(LibSecretClient.milliseconds(timeout)) ms: answer it in the provider's window (or unlock the keyring, open the wallet, turn off the provider's confirmation), then retry"))
        }

        /// `Prompt.Dismiss`, bounded on its own (the operation's deadline may be over): best effort, a
        /// provider that already dropped the prompt answers an error that changes nothing.
        private func dismiss(_ prompt: String) {
            let bound = Deadline(after: min(timeout, .seconds(1)))
            defer { bound.finish() }
            if let reply = try? handle.call(
                prompt, "org.freedesktop.Secret.Prompt", "Dismiss", tuple([]), replyType: "()", deadline: bound,
                timeout: min(timeout, .seconds(1)))
            {
                g_variant_unref(reply)
            }
        }

        /// The item's attributes (Properties.Get), or `nil` when the item vanished meanwhile.
        func attributes(at path: String) throws(VaultError) -> SecretAttributes? {
            guard let value = try property(path, interface: "org.freedesktop.Secret.Item", name: "Attributes")
            else { return nil }
            defer { g_variant_unref(value) }
            return stringPairs(value)
        }

        /// The attributes of each of `paths` (`nil` for an item that vanished meanwhile), in order. The
        /// `Properties.Get` calls are sent together and their answers collected as they come
        /// (``PipelinedCalls``), so 10,000 items cost one wait instead of 10,000 round trips.
        func attributes(of paths: [String]) throws(VaultError) -> [SecretAttributes?] {
            if paths.count == 1 { return [try attributes(at: paths[0])] }
            let replies = try PipelinedCalls.run(
                handle.connection, paths: paths, interface: "org.freedesktop.DBus.Properties", method: "Get",
                parameters: { _ in tuple([g_variant_new_string("org.freedesktop.Secret.Item"), g_variant_new_string("Attributes")]) },
                replyType: "(v)", deadline: deadline, timeout: timeout)
            return replies.map { reply -> SecretAttributes? in
                guard let reply else { return nil }
                defer { g_variant_unref(reply) }
                guard let boxed = g_variant_get_child_value(reply, 0) else { return nil }
                defer { g_variant_unref(boxed) }
                guard let value = g_variant_get_variant(boxed) else { return nil }
                defer { g_variant_unref(value) }
                return stringPairs(value)
            }
        }

        /// The item's creation time (seconds since the epoch), or `nil` when it vanished meanwhile.
        func created(at path: String) throws(VaultError) -> UInt64? {
            guard let value = try property(path, interface: "org.freedesktop.Secret.Item", name: "Created")
            else { return nil }
            defer { g_variant_unref(value) }
            return UInt64(g_variant_get_uint64(value))
        }

        /// Whether the default collection is locked. No default collection is `storeUnavailable`.
        func defaultCollectionIsLocked() throws(VaultError) -> Bool {
            try isLocked(try defaultCollection(), interface: "org.freedesktop.Secret.Collection")
        }

        /// The `Locked` property of a collection or item; one that vanished is `storeUnavailable`.
        func isLocked(_ path: String, interface: String) throws(VaultError) -> Bool {
            guard let value = try property(path, interface: interface, name: "Locked")
            else { throw interface == "org.freedesktop.Secret.Collection" ? Self.noDefaultCollection : LibSecretClient.unexpected("the item vanished") }
            defer { g_variant_unref(value) }
            return g_variant_get_boolean(value) != 0
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
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias",
                tuple([g_variant_new_string("default")]), replyType: "(o)", deadline: deadline, timeout: timeout)
            else { throw LibSecretClient.unexpected("ReadAlias: no Secret Service object") }
            defer { g_variant_unref(reply) }
            guard let path = stringChild(reply, 0), path != "/" else { throw Self.noDefaultCollection }
            defaultCollectionPath.value = path
            return path
        }

        static let noDefaultCollection = VaultError(
            .storeUnavailable, underlying: .message(
                "the Secret Service has no default collection (ReadAlias(\"default\") answers \"/\"): point the alias at a collection "
                    + "(gnome-keyring: create the login keyring; KeePassXC: open a database and expose a group in its Secret Service "
                    + "Integration settings; KWallet: create and open the default wallet)"))

        /// Properties.Get; `nil` when the object does not exist.
        private func property(_ path: String, interface: String, name: String) throws(VaultError) -> OpaquePointer? {
            guard let reply = try handle.call(
                path, "org.freedesktop.DBus.Properties", "Get",
                tuple([g_variant_new_string(interface), g_variant_new_string(name)]),
                replyType: "(v)", deadline: deadline, timeout: timeout)
            else { return nil }
            defer { g_variant_unref(reply) }
            guard let boxed = g_variant_get_child_value(reply, 0) else {
                throw LibSecretClient.unexpected("Properties.Get returned no value")
            }
            defer { g_variant_unref(boxed) }
            return g_variant_get_variant(boxed)
        }
    }

    // MARK: connection

    /// Starts opening the process's service on another thread and returns at once, so that the caller's
    /// own work (parsing a command line, say) overlaps the connection and the DH session setup. An
    /// operation that starts meanwhile waits for this open (at most until its own deadline) and shares its
    /// outcome, error included; a failure is not kept, so later operations open again.
    ///
    /// One plain thread, not a dispatch queue: the first `async` to a global queue also starts
    /// libdispatch's root-queue workers, and at process start those thread creations delayed the
    /// connection by about 0.15 ms (Docs/Benchmarks.md). When no thread can be started, nothing is
    /// prepared and the first operation opens the service itself.
    ///
    /// The open's deadline is armed here, after the thread starts: the process's first dispatch timer
    /// also starts libdispatch's manager thread, which delayed the connection by about 0.05 ms when the
    /// connecting thread armed it (Docs/Benchmarks.md). The end of the deadline is fixed before either.
    static func prepareConnection(timeout: Duration) {
        let deadline = Deadline(after: timeout, armed: false)
        let open = Unmanaged.passRetained(PreparedOpen(LibSecretClient(timeout: timeout), deadline)).toOpaque()
        let thread = g_thread_try_new("secret-connect", { open in
            let open = Unmanaged<PreparedOpen>.fromOpaque(open!).takeRetainedValue()
            try? open.client.connect(by: open.deadline)
            return nil
        }, open, nil)
        if let thread {
            g_thread_unref(thread)  // detached: the thread's own reference ends with it
            deadline.arm()
            // The session's key pair, made here while the other thread connects, instead of on that
            // thread after the connection: about 0.2 ms of a cold start (Docs/Benchmarks.md). The
            // connecting thread makes its own if it gets there first.
            if let keyPair = try? SessionEncryption.KeyPair() {
                preparedKeyPair.withLock { if $0 == nil { $0 = keyPair } }
            }
        } else {
            Unmanaged<PreparedOpen>.fromOpaque(open).release()
        }
    }

    /// A key pair ``prepareConnection(timeout:)`` made for the next session; the open that uses it clears
    /// it, so no key pair serves two sessions.
    private static let preparedKeyPair = LockedValue<SessionEncryption.KeyPair?>(nil)

    /// What the connecting thread of ``prepareConnection(timeout:)`` is handed.
    private final class PreparedOpen: Sendable {
        let client: LibSecretClient
        let deadline: Deadline
        init(_ client: LibSecretClient, _ deadline: Deadline) {
            self.client = client
            self.deadline = deadline
        }
    }

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

    private func openService(_ deadline: Deadline) throws(VaultError) -> ServiceHandle {
        // Always on the session bus of the process environment, at the Secret Service's well-known name;
        // the session is ours (SessionEncryption.swift).
        GTypeStartup.prepare()
        // Registers the Secret Service's D-Bus error names (IsLocked, NoSuchObject, NoSession) as
        // libsecret's error domain, for the calls this file makes itself.
        _ = secret_error_get_quark()
        var error: UnsafeMutablePointer<GError>?
        // The bus daemon itself answers the connection's authentication and Hello in well under a
        // millisecond; an address where nothing answers (a stopped bus, a stale socket) must not cost every
        // command the whole timeout, which is sized for a provider that D-Bus activation starts.
        let busDeadline = Deadline(after: min(timeout, Self.busConnectionBound))
        defer { busDeadline.finish() }
        let opened: OpaquePointer?
        if let busAddress {
            opened = g_dbus_connection_new_for_address_sync(
                busAddress,
                GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue),
                nil, busDeadline.cancellable, &error)
        } else {
            opened = g_bus_get_sync(G_BUS_TYPE_SESSION, busDeadline.cancellable, &error)
        }
        if let error {
            if let opened { g_object_unref(UnsafeMutableRawPointer(opened)) }
            let mapped = Self.vaultError(consuming: error, deadline: busDeadline)
            if busDeadline.isCancelled && !deadline.isCancelled {
                throw VaultError(.storeUnavailable, underlying: .message(
                    "the session bus (DBUS_SESSION_BUS_ADDRESS) did not answer within \(Self.milliseconds(Self.busConnectionBound)) ms"))
            }
            throw mapped
        }
        guard let opened else { throw Self.unexpected("g_bus_get_sync returned nothing") }
        let connection = opened
        do throws(VaultError) {
            let prepared = Self.preparedKeyPair.withLock { slot in
                defer { slot = nil }
                return slot
            }
            let keyPair: SessionEncryption.KeyPair
            if let prepared { keyPair = prepared } else { keyPair = try SessionEncryption.KeyPair() }
            try introduce(connection, deadline)
            let input = g_variant_new_variant(byteArray(keyPair.publicKey))
            guard let reply = try Self.call(
                connection, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession",
                tuple([g_variant_new_string(SessionEncryption.algorithm), input]), replyType: "(vo)",
                deadline: deadline, timeout: timeout)
            else { throw Self.unexpected("OpenSession: no Secret Service object") }
            defer { g_variant_unref(reply) }
            guard let boxed = g_variant_get_child_value(reply, 0) else { throw Self.unexpected("OpenSession returned nothing") }
            defer { g_variant_unref(boxed) }
            guard let output = g_variant_get_variant(boxed) else { throw Self.unexpected("OpenSession returned nothing") }
            defer { g_variant_unref(output) }
            guard String(cString: g_variant_get_type_string(output)) == "ay", let sessionPath = stringChild(reply, 1) else {
                throw Self.unexpected("OpenSession returned no session key")
            }
            let encryption = try SessionEncryption(serverPublicKey: bytes(of: output), keyPair: keyPair)
            return ServiceHandle(connection, sessionPath: sessionPath, encryption: encryption)
        } catch {
            g_object_unref(UnsafeMutableRawPointer(connection))
            // A provider without this algorithm answers NotSupported: say what is missing, since the
            // fallback libsecret would take (secrets in the clear) is refused here.
            if case .gError(_, _, let message)? = error.underlying, message.hasPrefix("org.freedesktop.DBus.Error.NotSupported") {
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
    /// yet. It happened about once in 3,000 cold starts under CI's stress (Docs/Benchmarks.md, eleventh
    /// round); libsecret's proxy always sends `GetAll` first. A provider that refuses the property read
    /// (it is required by the specification, but answering is all this call is for) is not an error.
    private func introduce(_ connection: OpaquePointer, _ deadline: Deadline) throws(VaultError) {
        do throws(VaultError) {
            let reply = try Self.call(
                connection, "/org/freedesktop/secrets", "org.freedesktop.DBus.Properties", "Get",
                tuple([g_variant_new_string("org.freedesktop.Secret.Service"), g_variant_new_string("Collections")]),
                replyType: "(v)", deadline: deadline, timeout: timeout, autoStart: true)
            if let reply { g_variant_unref(reply) }
        } catch {
            guard error.isRefusalByTheProvider else { throw error }
        }
    }

    /// One D-Bus call to the Secret Service on `connection`; `nil` when the object does not exist.
    fileprivate static func call(
        _ connection: OpaquePointer?, _ path: String, _ interface: String, _ method: String, _ parameters: OpaquePointer?,
        replyType: String, deadline: Deadline, timeout: Duration, autoStart: Bool = false,
        destination: String = secretsBusName
    ) throws(VaultError) -> OpaquePointer? {
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, destination, path, interface, method, parameters, type,
            autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
            milliseconds(timeout), deadline.cancellable, &error)
        if let error {
            let mapped = vaultError(consuming: error, deadline: deadline)
            if mapped.isNoSuchObject { return nil }
            throw mapped
        }
        guard let reply else { throw unexpected("\(method) returned nothing") }
        return reply
    }

    // MARK: error mapping (the one place)

    /// Maps a GError (and frees it). Cancellation can only come from our deadline: it is a timeout.
    static func vaultError(consuming error: UnsafeMutablePointer<GError>, deadline: Deadline?) -> VaultError {
        defer { g_error_free(error) }
        let domain = error.pointee.domain
        let code = error.pointee.code
        let domainName = g_quark_to_string(domain).map { String(cString: $0) } ?? "unknown"
        var message = error.pointee.message.map { String(cString: $0) } ?? ""
        if let remote = g_dbus_error_get_remote_error(error) {
            // Keep the D-Bus error name: it says more than GDBus's generic code.
            message = "\(String(cString: remote)): \(message)"
            g_free(remote)
        }
        let underlying = VaultError.Underlying.gError(domain: domainName, code: code, message: message)
        if domain == g_io_error_quark() && code == Int32(G_IO_ERROR_CANCELLED.rawValue) {
            return VaultError(.storeUnavailable, underlying: .gError(
                domain: domainName, code: code, message: "no answer from the Secret Service in time"))
        }
        if (domain == secret_error_get_quark() && code == Int32(SECRET_ERROR_IS_LOCKED.rawValue))
            || message.hasPrefix("org.freedesktop.Secret.Error.IsLocked")
        {
            return VaultError(.storeLocked, underlying: underlying)
        }
        // Everything else means the store cannot do the job now: no bus, no provider, lost session,
        // protocol errors, missing collection. `isNoSuchObject` / `isStaleConnection` refine it.
        return VaultError(.storeUnavailable, underlying: underlying)
    }

    static func unexpected(_ what: String) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message(what))
    }

    /// Errors after which a fresh connection and session may succeed (daemon restarted, bus reconnected).
    static func isStaleConnection(_ error: VaultError) -> Bool {
        guard error.code == .storeUnavailable, case .gError(let domain, let code, let message)? = error.underlying
        else { return false }
        if message.hasPrefix("org.freedesktop.Secret.Error.NoSession") { return true }
        if domain == "g-io-error-quark" { return code == Int32(G_IO_ERROR_CLOSED.rawValue) || code == Int32(G_IO_ERROR_BROKEN_PIPE.rawValue) }
        if domain == "g-dbus-error-quark" {
            return [G_DBUS_ERROR_DISCONNECTED, G_DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_SERVICE_UNKNOWN,
                G_DBUS_ERROR_NAME_HAS_NO_OWNER, G_DBUS_ERROR_UNKNOWN_OBJECT, G_DBUS_ERROR_NO_SERVER]
                .contains { code == Int32($0.rawValue) }
        }
        return false
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

extension VaultError {
    /// The provider answered `org.freedesktop.Secret.Error.IsLocked` (KWallet's `CreateItem` on a closed wallet).
    fileprivate var isLockedByTheProvider: Bool {
        guard code == .storeLocked, case .gError(let domain, let code, let message)? = underlying else { return false }
        return (domain == "secret-error" && code == Int32(SECRET_ERROR_IS_LOCKED.rawValue))
            || message.hasPrefix("org.freedesktop.Secret.Error.IsLocked")
    }

    /// A provider's answer that it does not know the method, interface, property or object asked for,
    /// or takes the arguments for invalid: it is there and answered (the bus's own errors, such as
    /// `ServiceUnknown`, are not this).
    fileprivate var isRefusalByTheProvider: Bool {
        guard case .gError(_, _, let message)? = underlying else { return false }
        return message.hasPrefix("org.freedesktop.DBus.Error.Unknown") || message.hasPrefix("org.freedesktop.DBus.Error.InvalidArgs")
    }

    /// The Secret Service reported that the object (item, collection, alias) does not exist.
    fileprivate var isNoSuchObject: Bool {
        guard case .gError(let domain, let code, let message)? = underlying else { return false }
        if domain == "secret-error" && code == Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue) { return true }
        if message.hasPrefix("org.freedesktop.Secret.Error.NoSuchObject") { return true }
        // gnome-keyring answers calls on a missing object path with UnknownMethod "Object does not exist".
        return domain == "g-dbus-error-quark"
            && (code == Int32(G_DBUS_ERROR_UNKNOWN_METHOD.rawValue) || code == Int32(G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue))
            && message.contains("does not exist")
    }
}

// MARK: GLib helpers

/// A reference to the session bus connection the store uses, and the encrypted session this process
/// opened on it.
///
/// @unchecked Sendable: every stored property is immutable; GObject reference counting is atomic, and
/// `GDBusConnection`'s calls are documented as thread-safe.
final class ServiceHandle: @unchecked Sendable {
    let connection: OpaquePointer
    let sessionPath: String
    let encryption: SessionEncryption

    /// Takes over one reference to `connection`.
    init(_ connection: OpaquePointer, sessionPath: String, encryption: SessionEncryption) {
        self.connection = connection
        self.sessionPath = sessionPath
        self.encryption = encryption
    }

    /// A call to the Secret Service on this connection (see `LibSecretClient.call`).
    func call(
        _ path: String, _ interface: String, _ method: String, _ parameters: OpaquePointer?,
        replyType: String, deadline: Deadline, timeout: Duration
    ) throws(VaultError) -> OpaquePointer? {
        try LibSecretClient.call(
            connection, path, interface, method, parameters, replyType: replyType, deadline: deadline, timeout: timeout)
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(connection)) }
}

/// A value one operation (one ``LibSecretClient/Call``, used by one thread) computes once and reuses.
final class OperationMemo<Value> {
    var value: Value?
}

/// A `GCancellable` that a timer cancels when the operation's time is up.
///
/// @unchecked Sendable: the pointer is immutable, and `g_cancellable_cancel` / `g_cancellable_is_cancelled`
/// are documented as thread-safe; the object lives until the last holder (the call or the timer) is gone.
final class Deadline: @unchecked Sendable {
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// When the timer cancels: the limit for waiting on another caller's open, too.
    let end: DispatchTime
    private let timer: DispatchWorkItem

    /// A deadline `timeout` from now; unless `armed` is false, its timer is armed at once (else ``arm()``).
    init(after timeout: Duration, armed: Bool = true) {
        // Every Secret Service call starts with a deadline, so this is each thread's first GIO call.
        GTypeStartup.prepare()
        let cancellable = g_cancellable_new()!
        self.cancellable = cancellable
        let box = CancellableBox(cancellable)
        timer = DispatchWorkItem { g_cancellable_cancel(box.cancellable) }
        let nanoseconds = Int(clamping: LibSecretClient.milliseconds(timeout)) * 1_000_000
        end = .now() + .nanoseconds(nanoseconds)
        if armed { arm() }
    }

    /// Arms the timer for `end` (once). After ``finish()`` the cancelled timer never fires.
    func arm() {
        DispatchQueue.global().asyncAfter(deadline: end, execute: timer)
    }

    var isCancelled: Bool { g_cancellable_is_cancelled(cancellable) != 0 }

    func finish() { timer.cancel() }

    deinit {
        timer.cancel()
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }
}

/// Keeps the cancellable alive for the timer, which may fire after the operation ended.
/// @unchecked Sendable: like ``Deadline``: the pointer is immutable, the box holds its own GObject reference
/// (atomic reference counting), and the timer only calls the thread-safe `g_cancellable_cancel` on it.
private final class CancellableBox: @unchecked Sendable {
    let cancellable: UnsafeMutablePointer<GCancellable>
    init(_ cancellable: UnsafeMutablePointer<GCancellable>) {
        self.cancellable = cancellable
        g_object_ref(UnsafeMutableRawPointer(cancellable))
    }
    deinit { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
}

/// A floating `a{ss}` GVariant of the pairs, in their order.
private func makeStringPairsVariant(_ pairs: some Sequence<(key: String, value: String)>) -> OpaquePointer {
    let type = g_variant_type_new("a{ss}")
    defer { g_variant_type_free(type) }
    let builder = g_variant_builder_new(type)
    defer { g_variant_builder_unref(builder) }
    for (key, value) in pairs {
        g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_string(value)))
    }
    return g_variant_builder_end(builder)
}

/// An `a{ss}` GVariant as a dictionary.
private func stringPairs(_ value: OpaquePointer) -> SecretAttributes {
    var result: SecretAttributes = [:]
    for index in 0..<g_variant_n_children(value) {
        guard let entry = g_variant_get_child_value(value, index) else { continue }
        defer { g_variant_unref(entry) }
        let key = g_variant_get_child_value(entry, 0)
        let item = g_variant_get_child_value(entry, 1)
        defer { g_variant_unref(key); g_variant_unref(item) }
        if let keyText = g_variant_get_string(key, nil), let valueText = g_variant_get_string(item, nil) {
            result[String(cString: keyText)] = String(cString: valueText)
        }
    }
    return result
}

/// Many calls to the Secret Service on one connection, sent without waiting for each answer (at most
/// ``window`` outstanding), their answers collected on a main context of this thread's own, as
/// ``PromptWaiter`` does.
///
/// Bounded per answer, not in total: each call fails after the store's timeout (GDBus's per-call
/// timeout), and the first failure stops the batch. A provider that stops answering fails the batch
/// within one timeout; one that holds 10,000 items (gnome-keyring answers about 0.2 to 1 ms per item)
/// is not refused for being large, which one deadline for the whole listing did at about 4,000 items.
final class PipelinedCalls {
    /// Answers not yet in at any time: enough to keep the provider busy, and well below dbus-daemon's
    /// per-connection limit of pending replies (128 on a bus whose configuration sets none).
    static let window = 64

    private final class Slot {
        let calls: PipelinedCalls
        let index: Int
        init(_ calls: PipelinedCalls, _ index: Int) {
            self.calls = calls
            self.index = index
        }
    }

    private var replies: [OpaquePointer?]
    private var failure: VaultError?
    private var outstanding = 0
    private let deadline: Deadline

    private init(count: Int, deadline: Deadline) {
        replies = Array(repeating: nil, count: count)
        self.deadline = deadline
    }

    /// The replies (new references, owned by the caller), `nil` for objects that do not exist.
    static func run(
        _ connection: OpaquePointer, paths: [String], interface: String, method: String,
        parameters: (String) -> OpaquePointer?, replyType: String, deadline: Deadline, timeout: Duration
    ) throws(VaultError) -> [OpaquePointer?] {
        let calls = PipelinedCalls(count: paths.count, deadline: deadline)
        let context = g_main_context_new()
        defer { g_main_context_unref(context) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let type = g_variant_type_new(replyType)
        defer { g_variant_type_free(type) }
        var next = 0
        // Every call sent is answered (timed out ones too), and its slot released, before this returns.
        while calls.outstanding > 0 || (next < paths.count && calls.failure == nil) {
            while next < paths.count && calls.outstanding < window && calls.failure == nil {
                let slot = Unmanaged.passRetained(Slot(calls, next)).toOpaque()
                g_dbus_connection_call(
                    connection, LibSecretClient.secretsBusName, paths[next], interface, method, parameters(paths[next]), type,
                    G_DBUS_CALL_FLAGS_NO_AUTO_START, LibSecretClient.milliseconds(timeout), nil,
                    { source, result, slot in
                        let slot = Unmanaged<Slot>.fromOpaque(slot!).takeRetainedValue()
                        slot.calls.finish(OpaquePointer(source), result, index: slot.index)
                    }, slot)
                calls.outstanding += 1
                next += 1
            }
            g_main_context_iteration(context, 1)
        }
        if let failure = calls.failure {
            for reply in calls.replies { if let reply { g_variant_unref(reply) } }
            throw failure
        }
        return calls.replies
    }

    private func finish(_ connection: OpaquePointer?, _ result: OpaquePointer?, index: Int) {
        outstanding -= 1
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_finish(connection, result, &error)
        if let error {
            let mapped = LibSecretClient.vaultError(consuming: error, deadline: deadline)
            if !mapped.isNoSuchObject && failure == nil { failure = mapped }
            return
        }
        replies[index] = reply
    }
}

/// Child `index` of a tuple as an `ao` array of object paths.
private func objectPaths(_ tuple: OpaquePointer?, _ index: Int) -> [String] {
    guard let child = g_variant_get_child_value(tuple, gsize(index)) else { return [] }
    defer { g_variant_unref(child) }
    return (0..<g_variant_n_children(child)).compactMap { stringChild(child, Int($0)) }
}

private func withCStringArray<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
    let copies = strings.map { UnsafePointer(strdup($0)) }
    defer { for copy in copies { free(UnsafeMutableRawPointer(mutating: copy)) } }
    var pointers = copies
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}

/// A floating tuple of floating children.
private func tuple(_ children: [OpaquePointer?]) -> OpaquePointer? {
    children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
}

/// A floating `ay` GVariant (a copy of the bytes).
private func byteArray(_ bytes: [UInt8]) -> OpaquePointer? {
    let elementType = g_variant_type_new("y")
    defer { g_variant_type_free(elementType) }
    let padded = bytes.isEmpty ? [0] : bytes  // GLib wants a non-NULL pointer; the count stays 0
    return padded.withUnsafeBytes { g_variant_new_fixed_array(elementType, $0.baseAddress, gsize(bytes.count), 1) }
}

/// The bytes of an `ay` GVariant.
private func bytes(of variant: OpaquePointer?) -> [UInt8] {
    var count: gsize = 0
    guard let start = g_variant_get_fixed_array(variant, &count, 1), count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: Int(count)))
}

/// Child `index` of a tuple as `ay` bytes.
private func bytesChild(_ tuple: OpaquePointer?, _ index: Int) -> [UInt8] {
    guard let child = g_variant_get_child_value(tuple, gsize(index)) else { return [] }
    defer { g_variant_unref(child) }
    return bytes(of: child)
}

/// Child `index` of a tuple as a string (also an object path); `nil` if it is neither.
private func stringChild(_ tuple: OpaquePointer?, _ index: Int) -> String? {
    guard let child = g_variant_get_child_value(tuple, gsize(index)) else { return nil }
    defer { g_variant_unref(child) }
    guard let text = g_variant_get_string(child, nil) else { return nil }
    return String(cString: text)
}
#endif
#if os(Linux)
import BiometricsVaultCore
import CGio

/// Waits for one Secret Service prompt's `Completed` signal.
///
/// The signal is subscribed (on a main context of its own) before `Prompt()` is called, so a provider that
/// completes the prompt at once (KWallet's `Unlock` of an open wallet, KeePassXC without confirmations)
/// cannot be missed. Only the thread that runs the operation iterates that context, so the signal
/// callback runs on that thread, inside ``wait(until:)``: no state is shared with another thread.
final class PromptWaiter {
    struct Outcome {
        var dismissed: Bool
        /// The signal's result value (a new reference), whose owner is the caller.
        var result: OpaquePointer?
    }

    private(set) var outcome: Outcome?
    private let connection: OpaquePointer
    private let context: OpaquePointer?
    private var subscription: guint = 0

    /// Subscribes to `Completed` of `prompt`, sent by `sender` (the provider's unique bus name).
    init(_ connection: OpaquePointer, prompt: String, sender: String) {
        self.connection = connection
        context = g_main_context_new()
        g_main_context_push_thread_default(context)
        subscription = g_dbus_connection_signal_subscribe(
            connection, sender, "org.freedesktop.Secret.Prompt", "Completed", prompt, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, waiter in
                guard let waiter else { return }
                Unmanaged<PromptWaiter>.fromOpaque(waiter).takeUnretainedValue().record(parameters)
            },
            // Unretained: the subscription ends in `close()`, before the waiter can go away, and callbacks
            // run only while this waiter iterates its own context.
            Unmanaged.passUnretained(self).toOpaque(), nil)
        g_main_context_pop_thread_default(context)
    }

    private func record(_ parameters: OpaquePointer?) {
        guard outcome == nil, let parameters, String(cString: g_variant_get_type_string(parameters)) == "(bv)" else { return }
        let dismissed = g_variant_get_child_value(parameters, 0)
        let boxed = g_variant_get_child_value(parameters, 1)
        defer { g_variant_unref(dismissed); g_variant_unref(boxed) }
        outcome = Outcome(dismissed: g_variant_get_boolean(dismissed) != 0, result: g_variant_get_variant(boxed))
    }

    /// Iterates the context until the signal came or the deadline's cancellable fired.
    func wait(until deadline: Deadline) throws(VaultError) {
        guard let source = g_cancellable_source_new(deadline.cancellable) else {
            throw VaultError(.storeUnavailable, underlying: .message("could not wait for the Secret Service's prompt"))
        }
        // The source only wakes the loop below; it removes itself.
        let wake: @convention(c) (UnsafeMutablePointer<GCancellable>?, gpointer?) -> gboolean = { _, _ in 0 }
        g_source_set_callback(source, unsafeBitCast(wake, to: GSourceFunc.self), nil, nil)
        g_source_attach(source, context)
        defer {
            g_source_destroy(source)
            g_source_unref(source)
        }
        while outcome == nil && !deadline.isCancelled {
            g_main_context_iteration(context, 1)
        }
    }

    /// Ends the subscription and runs what it left on the context (GLib frees the subscription there).
    func close() {
        if subscription != 0 {
            g_dbus_connection_signal_unsubscribe(connection, subscription)
            subscription = 0
        }
        while g_main_context_iteration(context, 0) != 0 {}
        g_main_context_unref(context)
    }
}
#endif
