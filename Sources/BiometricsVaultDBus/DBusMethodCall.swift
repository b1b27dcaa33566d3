#if os(Linux)
import BiometricsVaultCore
internal import CGio

// A method call as a ``DBusObjectServer`` hands it to Swift, answered with a reply or a D-Bus error, and
// who its caller is as the bus daemon vouches for it.

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

/// A method call as its handler sees it: who sent it, to what, with which arguments, and the one answer
/// it gets. ``DBusMethodCall`` is the bus's; a handler written against this can be driven in-process,
/// by a test that records the answer.
package protocol DBusIncomingCall: AnyObject, Sendable {
    /// The caller's unique name, as the bus daemon wrote it into the message.
    var sender: String { get }
    var member: String { get }
    var path: String { get }
    var interface: String { get }
    /// The call's arguments, a tuple.
    var parameters: DBusValue { get }
    /// Replies with `value` (a tuple; `nil` for no values). Only the first answer counts.
    func reply(_ value: DBusArgument?)
    /// Replies with the D-Bus error `name` and `message`. Only the first answer counts.
    func fail(name: String, message: String)
}

/// One method call to an exported object, answered exactly once with ``reply(_:)`` or ``fail(name:message:)``
/// from any thread (GDBus sends either from whichever thread calls it). A call never answered is
/// answered with `org.freedesktop.DBus.Error.Failed` when the value goes, so a caller is never left waiting.
///
/// `@unchecked Sendable` is safe: the invocation pointer is immutable and handed to GDBus at most once,
/// by whichever thread first flips `answered` under its lock; the sender, member and parameters are
/// immutable after `init` (a GVariant is immutable and its reference count atomic).
package final class DBusMethodCall: DBusIncomingCall, @unchecked Sendable {
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
