#if os(Linux)
internal import CGio

/// Sets up, once per process and on one thread, the GObject classes that a D-Bus client built on GIO
/// uses, before this package's threads start using GIO side by side.
///
/// Why: GLib's type system can deadlock when two threads set up GIO for the first time together (seen
/// with GLib 2.74, Debian 12's). One thread initialises a class (libsecret's `SecretService` did, whose
/// parent `GDBusProxy` refers to `GDBusConnection`) while holding GLib's class-initialisation lock, and waits
/// for `GDBusConnection`'s type; the other thread is registering that type (fprintd's system-bus
/// connection) and waits for the same lock to add its interfaces. A cold `retrieveVault` opens the
/// Secret Service and probes fprintd on two threads at once, and hung about once in a thousand runs on a
/// loaded machine (`GTypeRaceTests`).
///
/// Implementation requirement for every caller: call ``prepare()`` on a thread before that thread's
/// first call into GIO. This target's connections and cancellations do, and no other target of the
/// package calls GIO's D-Bus code itself. A thread that
/// arrives while another runs it waits without holding any GLib lock. Afterwards the public classes that
/// a Secret Service open and a system-bus connection set up (GLib 2.74) are ready, so neither set-up
/// waits on the other's type registration for those. Not covered: GIO's private classes (socket streams,
/// the authentication mechanisms), which no public call can set up ahead, and an app's own threads that
/// start GIO at the same moment without calling this.
package enum GTypeStartup {
    /// Runs the set-up once per process; later calls return at once.
    package static func prepare() {
        _ = done
    }

    /// Swift runs a global's initialiser exactly once, and other threads wait for it.
    private static let done: Bool = {
        // Every class a Secret Service open and a system-bus connection initialise (listed with GLib
        // 2.74 by walking the type tree after both), whose types are public. Referring to a type
        // registers it; taking a reference to its class runs the class's set-up, parents first.
        let types: [GType] = [
            g_task_get_type(), g_cancellable_get_type(), g_credentials_get_type(),
            g_dbus_connection_get_type(), g_dbus_proxy_get_type(), g_dbus_message_get_type(),
            g_dbus_auth_observer_get_type(),
            g_socket_client_get_type(), g_socket_get_type(), g_socket_connection_get_type(),
            g_unix_connection_get_type(), g_unix_socket_address_get_type(), g_inet_socket_address_get_type(),
            g_proxy_address_get_type(), g_unix_credentials_message_get_type(),
            g_memory_input_stream_get_type(), g_data_input_stream_get_type(), g_data_output_stream_get_type(),
        ]
        for type in types {
            g_type_class_unref(g_type_class_ref(type))
        }
        return true
    }()
}
#endif
