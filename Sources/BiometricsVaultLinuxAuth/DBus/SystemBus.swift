#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultGLib
import CGio

// The package's one D-Bus binding: GIO's GDBus (libgio-2.0), which libsecret already links, so the
// Linux build gains no new system library and no hand-written wire code. Only the fprintd and polkit
// choke points (`FprintdDevice.swift`, `PolkitAuthority.swift`) and the screen-lock watcher
// (`ScreenLockWatcher.swift`) use this file; they map its failures to `VaultError`.

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
#endif
