#if os(Linux)
import BiometricsVaultCore
internal import CGio

// The serving side of the package's one D-Bus layer: a well-known name on a bus, one object with one
// interface described by introspection XML, method calls handed to Swift, replies and D-Bus errors sent
// back, who the caller is as the bus daemon vouches for it, and callers that left the bus. GDBus does
// the marshalling, framing, introspection and name ownership; nothing here encodes anything itself.

/// Who sent a method call, as the bus daemon reports it (`GetConnectionCredentials`): never what the
/// message says about itself.
package struct DBusPeerCredentials: Sendable, Hashable {
    /// The caller's unique connection name (`:1.42`). It is never reused on a bus.
    package var uniqueName: String
    package var uid: UInt32
    /// The pid the bus saw when the caller connected (`SO_PEERCRED`).
    package var pid: UInt32

    package init(uniqueName: String, uid: UInt32, pid: UInt32) {
        self.uniqueName = uniqueName
        self.uid = uid
        self.pid = pid
    }
}

/// One method call to an exported object, answered exactly once with ``reply(_:)`` or ``fail(name:message:)``
/// from any thread (GDBus sends either from whichever thread calls it). A call never answered is
/// answered with `org.freedesktop.DBus.Error.Failed` when the value goes, so a caller is never left waiting.
///
/// `@unchecked Sendable` is safe: the invocation pointer is immutable and handed to GDBus at most once,
/// by whichever thread first flips `answered` under its lock; the sender, member and parameters are
/// immutable after `init` (a GVariant is immutable and its reference count atomic).
package final class DBusMethodCall: @unchecked Sendable {
    /// The caller's unique name, from the message header the bus daemon fills in.
    package let sender: String
    package let member: String
    /// The object the call is to, and its interface.
    package let path: String
    package let interface: String
    /// The call's arguments, a tuple.
    package let parameters: DBusValue
    private let invocation: OpaquePointer
    private let answered = LockedValue(false)

    init(invocation: OpaquePointer, sender: String, member: String, parameters: OpaquePointer, path: String = "", interface: String = "") {
        self.invocation = invocation
        self.sender = sender
        self.member = member
        self.path = path
        self.interface = interface
        self.parameters = DBusValue(borrowing: parameters)
    }

    deinit {
        if let pending = take() {
            g_dbus_method_invocation_return_dbus_error(pending, "org.freedesktop.DBus.Error.Failed", "the call was not answered")
        }
    }

    /// Replies with `value` (a ``DBusArgument/tuple(_:)``; `nil` for no values).
    package func reply(_ value: DBusArgument?) {
        guard let pending = take() else {
            // Build-and-drop would leak the floating value: sink and free it.
            if let value { g_variant_unref(g_variant_ref_sink(value.raw)) }
            return
        }
        g_dbus_method_invocation_return_value(pending, value?.raw)
    }

    /// Replies with the D-Bus error `name` and `message`.
    package func fail(name: String, message: String) {
        guard let pending = take() else { return }
        g_dbus_method_invocation_return_dbus_error(pending, name, message)
    }

    private func take() -> OpaquePointer? {
        let first = answered.withLock { answered in
            defer { answered = true }
            return !answered
        }
        return first ? invocation : nil
    }
}

/// A service on a bus: owns `name`, serves one interface at one object path, and hands each method call
/// to `handler` on the server's own thread (``run()``'s), which must not block: it hands the work to
/// another thread and answers from there.
///
/// Implementation requirements:
/// - **The bus vouches for the caller.** ``credentials(of:)`` asks the bus daemon; a method call carries
///   its sender's unique name in a header the daemon writes, so no client can speak for another.
/// - **Departures are reported.** `peerLeft` runs (on the server's thread) with the unique name of every
///   connection that leaves the bus, so work for a caller that disconnected can be stopped.
/// - **Bounded start.** Connecting and requesting the name end by their timeouts; a name owned by
///   another process is `DBusFailure` of kind `refused`.
///
/// `@unchecked Sendable` is safe: the connection is a ``DBusConnection`` (itself safe to share); `stop`
/// only sets an atomic flag under a lock and wakes the server's main context, which GLib allows from
/// any thread; the registration state is touched only by the thread in ``run()``.
package final class DBusServer: @unchecked Sendable {
    package let connection: DBusConnection
    package let name: String
    private let path: String
    private let interfaceXML: String
    private let handler: @Sendable (DBusMethodCall) -> Void
    private let peerLeft: @Sendable (String) -> Void
    private let context: OpaquePointer
    private let stopped = LockedValue(false)

    package init(
        bus: DBusBus, name: String, path: String, interfaceXML: String,
        handler: @escaping @Sendable (DBusMethodCall) -> Void,
        peerLeft: @escaping @Sendable (String) -> Void
    ) throws(DBusFailure) {
        connection = try DBusConnection(bus, sharing: .privateConnection)
        self.name = name
        self.path = path
        self.interfaceXML = interfaceXML
        self.handler = handler
        self.peerLeft = peerLeft
        context = g_main_context_new()
    }

    deinit { g_main_context_unref(context) }

    /// Registers the object, takes the name and serves calls on the calling thread until ``stop()`` or
    /// until the bus connection closes. `ready` runs once the name is owned.
    package func run(ready: () -> Void = {}) throws(DBusFailure) {
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }

        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(interfaceXML, &error) else { throw DBusFailure(taking: error) }
        defer { g_dbus_node_info_unref(node) }
        guard let interface = node.pointee.interfaces?.pointee else {
            throw DBusFailure.io(G_IO_ERROR_INVALID_ARGUMENT, "the introspection XML declares no interface")
        }

        let box = Unmanaged.passRetained(Handlers(handler: handler, peerLeft: peerLeft))
        defer { box.release() }
        let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
        defer { vtable.deallocate() }
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, sender, _, _, member, parameters, invocation, userData in
            let handlers = Unmanaged<Handlers>.fromOpaque(userData!).takeUnretainedValue()
            let call = DBusMethodCall(
                invocation: invocation!, sender: sender.map { String(cString: $0) } ?? "",
                member: member.map { String(cString: $0) } ?? "", parameters: parameters!)
            handlers.handler(call)
        }
        let registration = g_dbus_connection_register_object(
            connection.raw, path, interface, vtable, box.toOpaque(), nil, &error)
        guard registration != 0 else { throw DBusFailure(taking: error) }
        defer { g_dbus_connection_unregister_object(connection.raw, registration) }

        let subscription = g_dbus_connection_signal_subscribe(
            connection.raw, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
            nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                let handlers = Unmanaged<Handlers>.fromOpaque(userData!).takeUnretainedValue()
                let change = DBusValue(borrowing: parameters!)
                guard let gone = change[0].string, gone.hasPrefix(":"), change[2].string == "" else { return }
                handlers.peerLeft(gone)
            }, box.toOpaque(), nil)
        defer { g_dbus_connection_signal_unsubscribe(connection.raw, subscription) }

        // DO_NOT_QUEUE: a second instance fails at once instead of waiting in line behind the first.
        let reply = try connection.call(
            DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                       interface: "org.freedesktop.DBus", member: "RequestName"),
            .tuple([.string(name), .uint32(0x4)]), replyType: "(u)")
        guard reply[0].uint32 == 1 else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.AccessDenied", code: 0,
                              message: "\(name) is owned by another process", isRemote: false)
        }
        ready()
        while !stopped.withLock({ $0 }) && g_dbus_connection_is_closed(connection.raw) == 0 {
            g_main_context_iteration(context, 1)
        }
    }

    /// Ends ``run()`` (from any thread): no new call is taken; calls being handled may still answer.
    package func stop() {
        stopped.withLock { $0 = true }
        g_main_context_wakeup(context)
    }

    /// Runs `body` on the server's thread after `delay` (a timer on its main context).
    package func schedule(after delay: Duration, _ body: @escaping () -> Void) {
        let source = wakeSource(g_timeout_source_new(UInt32(DBusConnection.milliseconds(delay))), body)
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// The caller's identity as the bus daemon knows it.
    package func credentials(of sender: String) throws(DBusFailure) -> DBusPeerCredentials {
        try connection.credentials(of: sender)
    }

    private final class Handlers {
        let handler: @Sendable (DBusMethodCall) -> Void
        let peerLeft: @Sendable (String) -> Void
        init(handler: @escaping @Sendable (DBusMethodCall) -> Void, peerLeft: @escaping @Sendable (String) -> Void) {
            self.handler = handler
            self.peerLeft = peerLeft
        }
    }
}

extension DBusConnection {
    /// `sender`'s identity as the bus daemon knows it (`GetConnectionCredentials`).
    package func credentials(of sender: String) throws(DBusFailure) -> DBusPeerCredentials {
        let reply = try call(
            DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                       interface: "org.freedesktop.DBus", member: "GetConnectionCredentials"),
            .tuple([.string(sender)]), replyType: "(a{sv})")
        var uid: UInt32?
        var pid: UInt32?
        for (key, value) in reply[0].properties ?? [] {
            switch key {
            case "UnixUserID": uid = value.uint32
            case "ProcessID": pid = value.uint32
            default: break
            }
        }
        guard let uid, let pid else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.Failed", code: 0,
                              message: "the bus did not report the caller's uid and pid", isRemote: false)
        }
        return DBusPeerCredentials(uniqueName: sender, uid: uid, pid: pid)
    }

    /// Whether the bus or the peer closed the connection (calls on it then fail).
    package var isClosed: Bool { g_dbus_connection_is_closed(raw) != 0 }

    /// This connection's unique name on its bus (`:1.42`), which the bus daemon assigned.
    package var uniqueName: String? {
        g_dbus_connection_get_unique_name(raw).map { String(cString: $0) }
    }
}

extension DBusArgument {
    /// An `as`.
    package static func strings(_ values: [String]) -> DBusArgument {
        let type = g_variant_type_new("s")
        defer { g_variant_type_free(type) }
        var raws: [OpaquePointer?] = values.map { g_variant_new_string($0) }
        return DBusArgument(raw: raws.withUnsafeMutableBufferPointer {
            g_variant_new_array(type, $0.baseAddress, gsize($0.count))
        })
    }
}
#endif
