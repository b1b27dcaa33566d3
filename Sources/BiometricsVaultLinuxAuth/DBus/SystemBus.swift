#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultGLib
import CGio
import Glibc

// The package's one D-Bus binding: GIO's GDBus (libgio-2.0), which libsecret already links, so the
// Linux build gains no new system library and no hand-written message code. Only the fprintd and polkit
// choke points (`FprintdDevice.swift`, `PolkitAuthority.swift`) and the screen-lock watcher
// (`ScreenLockWatcher.swift`) use this file; they map its failures to `VaultError`. One transport is
// ours (``DirectBusConnection``, for the cold start's fprintd probe); its messages are still GDBus's.

/// A D-Bus or GIO failure as GDBus reported it: the remote error name when the peer sent one
/// (`net.reactivated.Fprint.Error.PermissionDenied`), else the GError domain (`g-io-error-quark`).
struct DBusFailure: Error, Sendable {
    /// The D-Bus error name, or the GError domain when the failure did not come from the peer.
    var name: String
    var code: Int32
    var message: String
    /// Whether `name` is a D-Bus error name sent by the peer.
    var isRemote: Bool

    /// Takes ownership of `error` and frees it.
    init(taking error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.init(name: "unknown", code: -1, message: "GDBus failed without a GError", isRemote: false)
            return
        }
        defer { g_error_free(error) }
        if let remote = g_dbus_error_get_remote_error(error) {
            defer { g_free(remote) }
            _ = g_dbus_error_strip_remote_error(error)
            self.init(name: String(cString: remote), code: error.pointee.code,
                      message: error.pointee.message.map { String(cString: $0) } ?? "", isRemote: true)
        } else {
            self.init(name: g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "GError",
                      code: error.pointee.code,
                      message: error.pointee.message.map { String(cString: $0) } ?? "", isRemote: false)
        }
    }

    init(name: String, code: Int32, message: String, isRemote: Bool) {
        self.name = name
        self.code = code
        self.message = message
        self.isRemote = isRemote
    }

    /// The bus or the service is not there at all (no dbus-daemon, nobody owns the name).
    var isServiceMissing: Bool {
        [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound",
            "org.freedesktop.DBus.Error.Spawn.ServiceNotFound",
        ].contains(name) || !isRemote
    }

    var underlying: VaultError.Underlying {
        isRemote ? .dbus(name: name, message: message) : .gError(domain: name, code: code, message: message)
    }
}

/// A GVariant value we own one reference to.
final class DBusValue {
    let raw: OpaquePointer

    /// Takes ownership of a (non-floating) reference.
    init(taking raw: OpaquePointer) { self.raw = raw }

    /// Adds a reference to a borrowed value.
    init(borrowing raw: OpaquePointer) { self.raw = g_variant_ref(raw) }

    deinit { g_variant_unref(raw) }

    var typeString: String { String(cString: g_variant_get_type_string(raw)) }

    var count: Int { Int(g_variant_n_children(raw)) }

    subscript(index: Int) -> DBusValue { DBusValue(taking: g_variant_get_child_value(raw, gsize(index))) }

    /// The string of an `s`/`o` value, or of the value inside a `v`.
    var string: String? {
        if typeString == "v" { return unboxed.string }
        guard typeString == "s" || typeString == "o" else { return nil }
        return String(cString: g_variant_get_string(raw, nil))
    }

    var bool: Bool? {
        if typeString == "v" { return unboxed.bool }
        return typeString == "b" ? g_variant_get_boolean(raw) != 0 : nil
    }

    /// The elements of an `as`, or of the first member of an `(as)` tuple.
    var strings: [String]? {
        if typeString == "(as)" { return self[0].strings }
        guard typeString == "as" else { return nil }
        return (0..<count).compactMap { self[$0].string }
    }

    /// The value inside a `v`.
    var unboxed: DBusValue { DBusValue(taking: g_variant_get_variant(raw)) }

    /// A `(v)` reply's value.
    var firstVariant: DBusValue? { typeString == "(v)" ? self[0].unboxed : nil }
}

/// Builders for the few argument shapes the fprintd and polkit calls use. Each returns a floating
/// GVariant that the GDBus call consumes.
enum DBusArgument {
    static func string(_ value: String) -> OpaquePointer { g_variant_new_string(value) }
    static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value) }
    static func uint64(_ value: UInt64) -> OpaquePointer { g_variant_new_uint64(guint64(value)) }
    static func int32(_ value: Int32) -> OpaquePointer { g_variant_new_int32(value) }

    static func tuple(_ members: [OpaquePointer]) -> OpaquePointer {
        var members: [OpaquePointer?] = members
        return members.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    /// An `a{sv}` dictionary.
    static func vardict(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        let elements: [OpaquePointer?] = entries.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value))
        }
        return array(of: "{sv}", elements)
    }

    /// An `a{ss}` dictionary.
    static func stringDict(_ entries: [(String, String)]) -> OpaquePointer {
        let elements: [OpaquePointer?] = entries.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_string(value))
        }
        return array(of: "{ss}", elements)
    }

    private static func array(of elementType: String, _ elements: [OpaquePointer?]) -> OpaquePointer {
        let type = g_variant_type_new(elementType)
        defer { g_variant_type_free(type) }
        var elements = elements
        return elements.withUnsafeMutableBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
    }
}

/// Which bus a ``SystemBusConnection`` connects to.
enum DBusBus: Sendable {
    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket).
    case system
    /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    case session
    /// A bus at an explicit address (`unix:path=...`), e.g. a private test bus.
    case address(String)
}

/// One private connection to the system bus (or another bus, see ``DBusBus``), with its own GLib main
/// context for signal delivery.
///
/// Not thread-safe: create, use and close it on one thread (the choke points run it on a dedicated
/// thread). A private connection (not GIO's shared singleton) means closing it drops every fprintd claim
/// it holds, so a crash or a leak can never keep the reader claimed.
final class SystemBusConnection {
    let raw: OpaquePointer
    /// The context signal callbacks are dispatched on; iterate it with ``iterate()``.
    let context: OpaquePointer
    private var subscriptions: [UInt32] = []

    init(_ bus: DBusBus = .system) throws(DBusFailure) {
        GTypeStartup.prepare()  // before this thread's first GIO call (GTypeStartup says why)
        var error: UnsafeMutablePointer<GError>?
        let resolved: UnsafeMutablePointer<gchar>?
        switch bus {
        case .system: resolved = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error)
        case .session: resolved = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error)
        case .address(let explicit): resolved = g_strdup(explicit)
        }
        guard let address = resolved else { throw DBusFailure(taking: error) }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw DBusFailure(taking: error)
        }
        raw = connection
        context = g_main_context_new()
        g_main_context_push_thread_default(context)
    }

    deinit {
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(raw, guint(id)) }
        _ = g_dbus_connection_close_sync(raw, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(raw))
        // Deliver pending destroy notifications of the subscriptions before the context goes away.
        while g_main_context_iteration(context, 0) != 0 {}
        g_main_context_pop_thread_default(context)
        g_main_context_unref(context)
    }

    /// Calls `method` and returns its reply tuple. The default timeout is 5 s, not GDBus's 25 s: a hung
    /// daemon must not freeze `retrieveVault` (which probes fprintd) for long. Calls that wait for a
    /// person (polkit's CheckAuthorization) pass their own.
    func call(
        destination: String, path: String, interface: String, method: String,
        arguments: OpaquePointer? = nil, timeoutMilliseconds: Int32 = 5000,
        cancellable: UnsafeMutablePointer<GCancellable>? = nil
    ) throws(DBusFailure) -> DBusValue {
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            raw, destination, path, interface, method, arguments, nil, G_DBUS_CALL_FLAGS_NONE,
            timeoutMilliseconds, cancellable, &error)
        else { throw DBusFailure(taking: error) }
        return DBusValue(taking: reply)
    }

    /// Reads one property through `org.freedesktop.DBus.Properties.Get`.
    func property(destination: String, path: String, interface: String, name: String) throws(DBusFailure) -> DBusValue {
        let reply = try call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: DBusArgument.tuple([DBusArgument.string(interface), DBusArgument.string(name)]))
        guard let value = reply.firstVariant else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.InvalidSignature", code: 0,
                              message: "Properties.Get replied \(reply.typeString)", isRemote: false)
        }
        return value
    }

    /// Waits until the bus has processed everything this connection sent before (signal subscriptions
    /// add their match rules asynchronously): a round trip to the bus itself.
    func sync() throws(DBusFailure) {
        _ = try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                     interface: "org.freedesktop.DBus", method: "GetId")
    }

    /// Subscribes to a signal; `handler` runs on this connection's thread while ``iterate()`` runs.
    /// Returns the subscription id for ``unsubscribe(_:)``.
    @discardableResult
    func subscribe(sender: String?, path: String?, interface: String, member: String,
                   handler: @escaping (DBusValue) -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(SignalHandlerBox(handler)).toOpaque()
        let id = g_dbus_connection_signal_subscribe(
            raw, sender, interface, member, path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let parameters, let userData else { return }
                Unmanaged<SignalHandlerBox>.fromOpaque(userData).takeUnretainedValue()
                    .handler(DBusValue(borrowing: parameters))
            }, box, { userData in
                guard let userData else { return }
                Unmanaged<SignalHandlerBox>.fromOpaque(userData).release()
            })
        subscriptions.append(UInt32(id))
        return UInt32(id)
    }

    func unsubscribe(_ id: UInt32) {
        guard let index = subscriptions.firstIndex(of: id) else { return }
        subscriptions.remove(at: index)
        g_dbus_connection_signal_unsubscribe(raw, guint(id))
    }

    /// Dispatches pending signals, blocking until at least one event or ``MainContextWaker/wake()``.
    func iterate() { _ = g_main_context_iteration(context, 1) }

    /// A handle other threads may use to wake ``iterate()``.
    var waker: MainContextWaker { MainContextWaker(context: context) }

    /// Adds a periodic wake-up so deadlines are noticed even when no signal arrives.
    func addTicker(milliseconds: UInt32) {
        let source = g_timeout_source_new(milliseconds)
        g_source_set_callback(source, { _ in 1 /* G_SOURCE_CONTINUE */ }, nil, nil)
        g_source_attach(source, context)
        g_source_unref(source)
    }
}

private final class SignalHandlerBox {
    let handler: (DBusValue) -> Void
    init(_ handler: @escaping (DBusValue) -> Void) { self.handler = handler }
}

/// Wakes a connection's main context from another thread.
///
/// `@unchecked Sendable` is safe: it holds its own reference to the `GMainContext`, and
/// `g_main_context_wakeup` is documented as callable from any thread.
struct MainContextWaker: @unchecked Sendable {
    private let context: ContextReference

    init(context: OpaquePointer) { self.context = ContextReference(context) }

    func wake() { g_main_context_wakeup(context.raw) }

    private final class ContextReference {
        let raw: OpaquePointer
        init(_ raw: OpaquePointer) { self.raw = g_main_context_ref(raw) }
        deinit { g_main_context_unref(raw) }
    }
}

/// What a caller of plain method calls needs of a connection: GDBus's (``SystemBusConnection``) or the
/// probe's own transport (``DirectBusConnection``).
protocol DBusMethodCalling {
    /// Calls `method` with `arguments` (a floating tuple the call consumes, or `nil`) and returns the
    /// reply's body as a tuple; a D-Bus error reply throws with the error's name.
    func methodCall(
        destination: String, path: String, interface: String, method: String, arguments: OpaquePointer?
    ) throws(DBusFailure) -> DBusValue
}

extension SystemBusConnection: DBusMethodCalling {
    func methodCall(
        destination: String, path: String, interface: String, method: String, arguments: OpaquePointer?
    ) throws(DBusFailure) -> DBusValue {
        try call(destination: destination, path: path, interface: interface, method: method, arguments: arguments)
    }
}

/// A connection to a message bus for method calls only, on a socket that the calling thread writes and
/// reads itself. GDBus still encodes and decodes every message (`GDBusMessage`); only the transport and
/// the authentication (`EXTERNAL`, as GDBus does on a unix socket) are ours.
///
/// Why: GDBus moves the messages of every connection of a process through one worker thread, and sets a
/// connection up one round trip at a time (authentication, then `Hello`, then the first call). The cold
/// `retrieveVault` probes fprintd while it reads the Secret Service, whose messages go through that same
/// worker. Here the authentication, `Hello` and the first call leave at once, and the replies wake only
/// the calling thread (Docs/Benchmarks.md, tenth round).
///
/// Not thread-safe: one thread creates, uses and drops it. It sends method calls and waits for their
/// replies; any other message (the bus's `NameAcquired`, a signal sent to us) is read and dropped, and
/// nothing is answered. Dropping it closes the socket, which ends the connection.
final class DirectBusConnection: DBusMethodCalling {
    /// How long a call waits for its reply: as ``SystemBusConnection/call(destination:path:interface:method:arguments:timeoutMilliseconds:cancellable:)``.
    static let defaultTimeout: Duration = .seconds(5)
    /// A reply longer than this ends the connection. fprintd's replies are a few hundred bytes; the
    /// limit only bounds what a peer can make us hold.
    static let maximumMessageLength = 1 << 20

    /// One entry of a bus address that this transport can connect to.
    enum SocketAddress: Equatable {
        case path(String)
        case abstract(String)
    }

    private let socket: Int32
    private let timeout: Duration
    private var lastSerial: UInt32 = 0
    private var helloSerial: UInt32 = 0
    /// Bytes read and not yet consumed.
    private var received: [UInt8] = []
    private var authenticated = false
    /// Set by the first failure that is not an error reply (a timeout, a closed or garbled stream): the
    /// stream's position is then unknown, so later calls fail with it too.
    private var broken: DBusFailure?

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket), or returns
    /// `nil` when that address names a transport other than a unix socket: use ``SystemBusConnection``.
    static func system(timeout: Duration = defaultTimeout) throws(DBusFailure) -> DirectBusConnection? {
        GTypeStartup.prepare()  // before this thread's first GIO call (GTypeStartup says why)
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            throw DBusFailure(taking: error)
        }
        defer { g_free(address) }
        return try connect(address: String(cString: address), timeout: timeout)
    }

    /// Connects to the first entry of `address` that accepts, or returns `nil` when an entry is not a
    /// unix socket (`tcp:`, `unix:runtime=yes`, ...): GDBus handles those.
    static func connect(address: String, timeout: Duration = defaultTimeout) throws(DBusFailure) -> DirectBusConnection? {
        GTypeStartup.prepare()
        guard let entries = socketAddresses(of: address) else { return nil }
        var failure = DBusFailure(name: ioErrorDomain, code: Int32(G_IO_ERROR_INVALID_ARGUMENT.rawValue),
                                  message: "no address in \"\(address)\"", isRemote: false)
        for entry in entries {
            do { return try DirectBusConnection(entry: entry, timeout: timeout) } catch { failure = error }
        }
        throw failure
    }

    /// The entries of a D-Bus address (`unix:path=/run/dbus/system_bus_socket;unix:abstract=x`), or `nil`
    /// when one is not a unix socket this transport connects to, or is malformed. Keys other than
    /// `path`/`abstract` (`guid`) are ignored; values are unescaped (`%2f`) and must be UTF-8.
    static func socketAddresses(of address: String) -> [SocketAddress]? {
        var entries: [SocketAddress] = []
        for entry in address.split(separator: ";", omittingEmptySubsequences: true) {
            guard entry.hasPrefix("unix:") else { return nil }
            var found: SocketAddress?
            for pair in entry.dropFirst("unix:".count).split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let value = unescapeAddressValue(parts[1]) else { return nil }
                switch parts[0] {
                case "path": if found != nil { return nil } else { found = .path(value) }
                case "abstract": if found != nil { return nil } else { found = .abstract(value) }
                case "guid": continue
                default: return nil  // runtime=, tmpdir=, dir=: not a socket to connect to, or not ours
                }
            }
            guard let found else { return nil }
            entries.append(found)
        }
        return entries.isEmpty ? nil : entries
    }

    private static func unescapeAddressValue(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        // Not UTF-8: left to GDBus, rather than connecting to a path with replacement characters.
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Connects and sends the authentication and `Hello` without waiting: the first call's reply comes
    /// after theirs.
    private init(entry: SocketAddress, timeout: Duration) throws(DBusFailure) {
        socket = try Self.connectedSocket(entry)
        self.timeout = timeout
        // Every stored property is set: from here on a throw runs `deinit`, which closes the socket. So
        // nothing below closes it (twice would close whatever another thread opened in between).
        // EXTERNAL with our uid in hex digits of its decimal text, as the spec (and GDBus) sends it; the
        // bus checks it against the socket's peer credentials.
        let uid = String(geteuid()).utf8.map { String($0, radix: 16) }.joined()
        helloSerial = nextSerial()
        let hello = try Self.encode(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "Hello", arguments: nil, serial: helloSerial)
        try send(Array("\0AUTH EXTERNAL \(uid)\r\nBEGIN\r\n".utf8) + hello)
    }

    /// A stream socket connected to `entry`; on failure its descriptor is closed here.
    private static func connectedSocket(_ entry: SocketAddress) throws(DBusFailure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path ends with a NUL; an abstract name starts with one (and has no end marker).
        let (name, bytes): (String, [UInt8]) = switch entry {
        case .path(let path): (path, Array(path.utf8) + [0])
        case .abstract(let abstract): (abstract, [0] + Array(abstract.utf8))
        }
        guard bytes.count <= capacity else {
            throw DBusFailure(name: ioErrorDomain, code: Int32(G_IO_ERROR_INVALID_ARGUMENT.rawValue),
                              message: "socket name too long: \(name)", isRemote: false)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ioFailure("socket", errno) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        guard connected == 0 else {
            let number = errno
            close(descriptor)
            throw ioFailure("connect to \(name)", number)
        }
        return descriptor
    }

    deinit { close(socket) }

    func methodCall(
        destination: String, path: String, interface: String, method: String, arguments: OpaquePointer?
    ) throws(DBusFailure) -> DBusValue {
        let serial = nextSerial()
        let message = try Self.encode(destination: destination, path: path, interface: interface, method: method,
                                      arguments: arguments, serial: serial)
        if let broken { throw broken }
        do {
            try send(message)
            return try reply(to: serial, deadline: .now + timeout)
        } catch {
            // An error reply leaves the stream where it was; anything else may not.
            if !error.isRemote { broken = error }
            throw error
        }
    }

    private func nextSerial() -> UInt32 {
        lastSerial += 1
        return lastSerial
    }

    /// A method call in D-Bus's wire format, encoded by GDBus. Consumes `arguments`.
    private static func encode(
        destination: String, path: String, interface: String, method: String, arguments: OpaquePointer?,
        serial: UInt32
    ) throws(DBusFailure) -> [UInt8] {
        let message = g_dbus_message_new_method_call(destination, path, interface, method)
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        if let arguments { g_dbus_message_set_body(message, arguments) }
        g_dbus_message_set_serial(message, serial)
        var length: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard let blob = g_dbus_message_to_blob(message, &length, G_DBUS_CAPABILITY_FLAGS_NONE, &error) else {
            throw DBusFailure(taking: error)
        }
        defer { g_free(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: Int(length)))
    }

    private func send(_ bytes: [UInt8]) throws(DBusFailure) {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE.
            let count = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.ioFailure("send", errno)
            }
            sent += count
        }
    }

    /// Reads until the reply to `serial` (a method return or an error) has arrived.
    private func reply(to serial: UInt32, deadline: ContinuousClock.Instant) throws(DBusFailure) -> DBusValue {
        if !authenticated {
            try readAuthenticationReply(deadline: deadline)
        }
        while true {
            let message = try readMessage(deadline: deadline)
            defer { g_object_unref(UnsafeMutableRawPointer(message)) }
            let type = g_dbus_message_get_message_type(message)
            guard type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR else { continue }
            let replySerial = g_dbus_message_get_reply_serial(message)
            if replySerial == helloSerial, type == G_DBUS_MESSAGE_TYPE_ERROR {
                throw Self.failure(fromError: message)
            }
            guard replySerial == serial else { continue }
            if type == G_DBUS_MESSAGE_TYPE_ERROR { throw Self.failure(fromError: message) }
            guard let body = g_dbus_message_get_body(message) else {
                return DBusValue(taking: g_variant_ref_sink(g_variant_new_tuple(nil, 0)))
            }
            return DBusValue(borrowing: body)
        }
    }

    private static func failure(fromError message: OpaquePointer) -> DBusFailure {
        var error: UnsafeMutablePointer<GError>?
        _ = g_dbus_message_to_gerror(message, &error)
        return DBusFailure(taking: error)
    }

    /// The server's answer to `AUTH EXTERNAL`: `OK <guid>`, after which the messages start.
    private func readAuthenticationReply(deadline: ContinuousClock.Instant) throws(DBusFailure) {
        while true {
            if let end = lineEnd() {
                let line = String(decoding: received[..<end], as: UTF8.self)
                received.removeFirst(end + 2)
                guard line.hasPrefix("OK ") else {
                    throw DBusFailure(name: Self.ioErrorDomain, code: Int32(G_IO_ERROR_PERMISSION_DENIED.rawValue),
                                      message: "the bus refused authentication: \(line.prefix(200))", isRemote: false)
                }
                authenticated = true
                return
            }
            guard received.count < 4096 else { throw Self.malformed("no end of the authentication reply") }
            try fill(deadline: deadline)
        }
    }

    private func lineEnd() -> Int? {
        guard received.count >= 2 else { return nil }
        for index in 0..<(received.count - 1) where received[index] == 13 && received[index + 1] == 10 {
            return index
        }
        return nil
    }

    /// The next whole message, decoded by GDBus.
    private func readMessage(deadline: ContinuousClock.Instant) throws(DBusFailure) -> OpaquePointer {
        // A message's fixed header is 16 bytes; from it GDBus tells the whole message's length.
        while received.count < 16 { try fill(deadline: deadline) }
        var error: UnsafeMutablePointer<GError>?
        let needed = received.withUnsafeMutableBufferPointer { g_dbus_message_bytes_needed($0.baseAddress, 16, &error) }
        guard needed >= 16 else { throw DBusFailure(taking: error) }
        guard needed <= Self.maximumMessageLength else { throw Self.malformed("a message of \(needed) bytes") }
        while received.count < Int(needed) { try fill(deadline: deadline) }
        let message = received.withUnsafeMutableBufferPointer {
            g_dbus_message_new_from_blob($0.baseAddress, gsize(needed), G_DBUS_CAPABILITY_FLAGS_NONE, &error)
        }
        received.removeFirst(Int(needed))
        guard let message else { throw DBusFailure(taking: error) }
        return message
    }

    /// Waits for bytes until `deadline` and appends them to ``received``.
    private func fill(deadline: ContinuousClock.Instant) throws(DBusFailure) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw DBusFailure(name: Self.ioErrorDomain, code: Int32(G_IO_ERROR_TIMED_OUT.rawValue),
                                  message: "no reply from the bus within \(timeout)", isRemote: false)
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw Self.ioFailure("poll", errno)
            }
            if ready == 0 { continue }  // the deadline check above ends it
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Self.ioFailure("receive", errno)
            }
            guard count > 0 else {
                throw DBusFailure(name: Self.ioErrorDomain, code: Int32(G_IO_ERROR_CONNECTION_CLOSED.rawValue),
                                  message: "the bus closed the connection", isRemote: false)
            }
            received += buffer[..<count]
            return
        }
    }

    /// GIO's error domain, so a failure here reads as GDBus's would.
    static let ioErrorDomain = "g-io-error-quark"

    private static func ioFailure(_ operation: String, _ number: Int32) -> DBusFailure {
        DBusFailure(name: ioErrorDomain, code: Int32(g_io_error_from_errno(number).rawValue),
                    message: "\(operation): \(String(cString: strerror(number)))", isRemote: false)
    }

    private static func malformed(_ what: String) -> DBusFailure {
        DBusFailure(name: ioErrorDomain, code: Int32(G_IO_ERROR_INVALID_DATA.rawValue),
                    message: "unexpected data from the bus: \(what)", isRemote: false)
    }
}
#endif
