#if os(Linux)
internal import CGio

// The package's one D-Bus layer: every D-Bus call of the package (the Secret Service, fprintd, polkit,
// the screen-lock watcher) goes through this target, and no other target holds D-Bus code.
//
// Built on GIO's GDBus (libgio-2.0), not sd-bus: GLib is linked anyway (its threads and main contexts),
// so the build gains no system library; GDBus is on every
// desktop Linux, including the ones without systemd; and it brings the pieces this layer needs and must
// not hand-write: address parsing, authentication, message framing, GVariant marshalling, and signal
// dispatch to a chosen GMainContext. Nothing here encodes, frames or authenticates anything itself.
//
// Threads: a call blocks the calling thread until its reply, its deadline or its cancellation (GDBus's
// own worker thread does the socket I/O). Signals are delivered only while the thread that owns a
// ``DBusSignalSubscription`` waits in ``DBusSignalSubscription/next(until:cancellation:)``, on that
// subscription's own GMainContext, so no callback ever runs on a thread the caller did not give.

/// Which bus a ``DBusConnection`` connects to.
package enum DBusBus: Sendable, Equatable {
    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket).
    case system
    /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    case session
    /// A bus at an explicit D-Bus address (`unix:path=...`), e.g. a private test bus.
    case address(String)
}

/// A method to call: where it lives.
package struct DBusMethod: Sendable, Hashable {
    package var destination: String
    package var path: String
    package var interface: String
    package var member: String

    package init(destination: String, path: String, interface: String, member: String) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
    }
}

/// Lets another thread stop a call or a wait on a ``DBusConnection`` or ``DBusSignalSubscription``:
/// a cancelled call throws ``DBusFailure/Kind/cancelled``, a wait returns ``DBusSignalWait/cancelled``.
/// Once cancelled it stays cancelled; make a new one for later calls.
///
/// `@unchecked Sendable` is safe: it only holds its own reference to a `GCancellable`, whose
/// `g_cancellable_cancel` and `g_cancellable_is_cancelled` GIO documents as callable from any thread.
package final class DBusCancellation: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GCancellable>

    package init() {
        GTypeStartup.prepare()  // may be the thread's first GIO call
        raw = g_cancellable_new()
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(raw)) }

    package func cancel() { g_cancellable_cancel(raw) }

    package var isCancelled: Bool { g_cancellable_is_cancelled(raw) != 0 }
}

/// One connection to a bus, ready for calls from any thread.
///
/// Implementation requirements (what every caller may rely on):
/// - **Bounded.** Connecting ends by its `timeout`; every call ends by its own `timeout` (default
///   ``defaultTimeout``, not GDBus's 25 s), or at once when the ``DBusCancellation`` passed is cancelled.
///   Nothing here waits without a bound. An operation of several calls bounded as a whole passes each
///   call the time it has left.
/// - **Typed failures.** Every failure is a ``DBusFailure`` with a ``DBusFailure/Kind``; a caller turns
///   it into a `VaultError` with its ``DBusErrorMapping`` and reads no GError.
/// - **Private or shared.** ``Sharing/privateConnection`` is this process's own connection, closed when
///   the object goes: whatever the peer ties to the connection (an fprintd claim) ends with it, even
///   after a crash. ``Sharing/processShared`` is GIO's one connection per bus for the process (what a
///   client that connects often wants); closing it is left to GIO.
/// - **Thread-safe calls.** ``call(_:_:replyType:autoStart:timeout:cancellation:)`` and ``property(_:path:interface:name:timeout:cancellation:)``
///   may run on any threads at once (GDBus's calls are). Signals need a ``DBusSignalSubscription``.
///
/// `@unchecked Sendable` is safe: the only stored state is the immutable `GDBusConnection` pointer and
/// its kind; GObject reference counting is atomic, and GDBus documents its connection's calls, signal
/// emission, subscriptions and close as safe from any thread.
package final class DBusConnection: @unchecked Sendable {
    /// What a call waits for its reply by default: 5 s, not GDBus's 25 s, so that a hung daemon does not
    /// freeze a `retrieveVault` (which probes fprintd) for long. Calls that wait for a person (polkit's
    /// CheckAuthorization, a Secret Service prompt) pass their own.
    package static let defaultTimeout: Duration = .seconds(5)

    package enum Sharing: Sendable {
        case privateConnection
        case processShared
    }

    let raw: OpaquePointer
    private let sharing: Sharing

    /// Connects and says `Hello` to the bus.
    ///
    /// - Throws: ``DBusFailure`` of kind `serviceMissing` when there is no bus at the address,
    ///   `timedOut` when it does not answer within `timeout`, `cancelled` after `cancellation` fired.
    package init(
        _ bus: DBusBus, sharing: Sharing = .privateConnection, timeout: Duration = defaultTimeout,
        cancellation: DBusCancellation? = nil
    ) throws(DBusFailure) {
        GTypeStartup.prepare()  // before this thread's first GIO call (GTypeStartup says why)
        raw = try Self.connect(bus, sharing: sharing, timeout: timeout, cancellation: cancellation)
        self.sharing = sharing
    }

    deinit {
        if sharing == .privateConnection {
            // Asynchronous: nothing to wait for, and GDBus's worker thread finishes it.
            g_dbus_connection_close(raw, nil, nil, nil)
        }
        g_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// Calls `method` and returns its reply: always a tuple, `()` for a method that returns nothing.
    ///
    /// - Parameters:
    ///   - arguments: a ``DBusArgument/tuple(_:)``, consumed by the call; `nil` for none.
    ///   - replyType: the reply's expected signature (`(oo)`); another is a failure of kind `local`.
    ///   - autoStart: whether the bus may start the destination (D-Bus activation) for this call.
    package func call(
        _ method: DBusMethod, _ arguments: DBusArgument? = nil, replyType: String? = nil,
        autoStart: Bool = true, timeout: Duration = defaultTimeout, cancellation: DBusCancellation? = nil
    ) throws(DBusFailure) -> DBusValue {
        let type: OpaquePointer? = replyType.map { g_variant_type_new($0) }
        defer { if let type { g_variant_type_free(type) } }
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            raw, method.destination, method.path, method.interface, method.member, arguments?.raw, type,
            autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
            Self.milliseconds(timeout), cancellation?.raw, &error)
        else { throw DBusFailure(taking: error) }
        return DBusValue(taking: reply)
    }

    /// Reads one property through `org.freedesktop.DBus.Properties.Get`: the value, unboxed.
    package func property(
        _ destination: String, path: String, interface: String, name: String,
        timeout: Duration = defaultTimeout, cancellation: DBusCancellation? = nil
    ) throws(DBusFailure) -> DBusValue {
        let reply = try call(
            DBusMethod(destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get"),
            .tuple([.string(interface), .string(name)]), replyType: "(v)", timeout: timeout, cancellation: cancellation)
        return reply[0].unboxed
    }

    /// Returns once the bus has handled everything this connection sent before (a signal
    /// subscription's match rule, say): one round trip to the bus itself.
    package func roundTripToBus(timeout: Duration = defaultTimeout) throws(DBusFailure) {
        _ = try call(DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                interface: "org.freedesktop.DBus", member: "GetId"), timeout: timeout)
    }

    /// Emits a signal from `path`: to the connection `destination` alone (the bus delivers it to no
    /// other), or to every listener when `nil`. From any thread.
    package func emit(to destination: String?, path: String, interface: String, member: String, _ arguments: DBusArgument?) {
        g_dbus_connection_emit_signal(raw, destination, path, interface, member, arguments?.raw, nil)
    }

    /// Starts delivering the signals that match any of `matches` to a new subscription, which queues
    /// them until its owner reads them. See ``DBusSignalSubscription``.
    package func subscribe(_ matches: [DBusSignalMatch]) -> DBusSignalSubscription {
        DBusSignalSubscription(connection: self, matches: matches)
    }

    // MARK: Private

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    /// Connects through GDBus's asynchronous set-up, on a main context of this call's own, so the
    /// deadline (a timeout source) and the caller's cancellation can end it: GDBus's synchronous set-up
    /// takes no timeout, and a bus that accepts the socket but never answers would hold it for ever.
    private static func connect(
        _ bus: DBusBus, sharing: Sharing, timeout: Duration, cancellation: DBusCancellation?
    ) throws(DBusFailure) -> OpaquePointer {
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        // Our own cancellable: the deadline cancels it, never the caller's.
        let cancellable = g_cancellable_new()
        defer { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        let pending = PendingConnect()
        let userData = Unmanaged.passRetained(pending).toOpaque()
        switch (bus, sharing) {
        case (.system, .processShared), (.session, .processShared):
            g_bus_get(bus == .system ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION, cancellable, { _, result, userData in
                let pending = Unmanaged<PendingConnect>.fromOpaque(userData!).takeRetainedValue()
                pending.connection = g_bus_get_finish(result, &pending.error)
                pending.done = true
            }, userData)
        case (.address, .processShared), (_, .privateConnection):
            var error: UnsafeMutablePointer<GError>?
            let address: UnsafeMutablePointer<gchar>?
            switch bus {
            case .system: address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error)
            case .session: address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error)
            case .address(let explicit): address = g_strdup(explicit)
            }
            guard let address else {
                Unmanaged<PendingConnect>.fromOpaque(userData).release()
                throw DBusFailure(taking: error)
            }
            defer { g_free(address) }
            let flags = GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            g_dbus_connection_new_for_address(address, flags, nil, cancellable, { _, result, userData in
                let pending = Unmanaged<PendingConnect>.fromOpaque(userData!).takeRetainedValue()
                pending.connection = g_dbus_connection_new_for_address_finish(result, &pending.error)
                pending.done = true
            }, userData)
        }
        // The deadline and the caller's cancellation both cancel the set-up; it then finishes (with
        // G_IO_ERROR_CANCELLED) on its next iteration.
        var timedOut = false
        let deadline = wakeSource(g_timeout_source_new(UInt32(milliseconds(timeout)))) {
            timedOut = true
            g_cancellable_cancel(cancellable)
        }
        g_source_attach(deadline, context)
        defer { g_source_destroy(deadline); g_source_unref(deadline) }
        let caller = cancellation.map { CancellationHandler($0) { g_cancellable_cancel(cancellable) } }
        defer { caller?.disconnect() }
        while !pending.done { g_main_context_iteration(context, 1) }
        if let connection = pending.connection {
            // GIO's shared connection would otherwise end the whole process (SIGTERM) when the bus
            // goes away; a library must report that as a failed call instead.
            if sharing == .processShared { g_dbus_connection_set_exit_on_close(connection, 0) }
            return connection
        }
        let failure = DBusFailure(taking: pending.error)
        if timedOut, failure.kind == .cancelled {
            throw DBusFailure.io(G_IO_ERROR_TIMED_OUT, "the bus did not answer within \(timeout)")
        }
        throw failure
    }

    /// What an asynchronous connect hands back to ``connect(_:sharing:timeout:cancellation:)``, on the
    /// connecting thread (the callback runs while that thread iterates its context).
    private final class PendingConnect {
        var connection: OpaquePointer?
        var error: UnsafeMutablePointer<GError>?
        var done = false
    }
}

/// A timeout source (or another plain GSource) whose callback runs `body` once; the source then
/// removes itself. Not attached: the caller attaches it to its context and destroys it when done.
func wakeSource(_ source: UnsafeMutablePointer<GSource>, _ body: @escaping () -> Void) -> UnsafeMutablePointer<GSource> {
    let box = Unmanaged.passRetained(SourceBody(body)).toOpaque()
    g_source_set_callback(source, { userData in
        Unmanaged<SourceBody>.fromOpaque(userData!).takeUnretainedValue().run()
        return 0  // G_SOURCE_REMOVE
    }, box, { userData in Unmanaged<SourceBody>.fromOpaque(userData!).release() })
    return source
}

/// Runs `body` on the cancelling thread when `cancellation` fires (at once, on this thread, if it already
/// has), until ``CancellationHandler/disconnect()``, which waits for a `body` already running. `body` must
/// only do thread-safe things (cancel a `GCancellable`, wake a main context). Not a `GCancellableSource`:
/// GLib 2.74 leaks such a source when a cancel on another thread races its disposal (LeakSanitizer saw
/// it under the screen-lock watcher's stop).
final class CancellationHandler {
    private let cancellation: DBusCancellation
    private let id: gulong

    init(_ cancellation: DBusCancellation, _ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(SourceBody(body)).toOpaque()
        let callback: @convention(c) (UnsafeMutablePointer<GCancellable>?, gpointer?) -> Void = { _, userData in
            Unmanaged<SourceBody>.fromOpaque(userData!).takeUnretainedValue().run()
        }
        self.cancellation = cancellation
        id = g_cancellable_connect(cancellation.raw, unsafeBitCast(callback, to: GCallback.self), box, { userData in
            Unmanaged<SourceBody>.fromOpaque(userData!).release()
        })
    }

    func disconnect() { g_cancellable_disconnect(cancellation.raw, id) }
}

private final class SourceBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
#endif
#if os(Linux)
internal import CGio

extension DBusConnection {
    /// Calls `methods` without waiting for each reply before sending the next (at most `window` replies
    /// outstanding), and returns their replies in order: many small calls (a property of 10,000 objects)
    /// then cost about one wait, not one round trip each. The replies are collected on a main context of
    /// this call's own, on the calling thread.
    ///
    /// Bounded per call, not in total: each call ends by its own `timeout`, so a peer that stops
    /// answering ends the batch within about one `timeout`, and a large batch is not refused for its size.
    /// A failure that `tolerating` accepts gives `nil` for that call; the first other failure stops the
    /// batch (no further call is sent) and is thrown once every call sent has ended.
    ///
    /// - Parameters:
    ///   - arguments: the arguments of each call (consumed by it), built when it is sent.
    package func pipelinedCalls(
        _ methods: [DBusMethod], arguments: (DBusMethod) -> DBusArgument?, replyType: String? = nil,
        autoStart: Bool = true, window: Int, timeout: Duration = defaultTimeout, cancellation: DBusCancellation? = nil,
        tolerating: (DBusFailure) -> Bool = { _ in false }
    ) throws(DBusFailure) -> [DBusValue?] {
        try withoutActuallyEscaping(tolerating) { tolerating throws(DBusFailure) in
            try pipelinedCalls(methods, arguments: arguments, replyType: replyType, autoStart: autoStart, window: window,
                               timeout: timeout, cancellation: cancellation,
                               batch: PipelinedBatch(count: methods.count, tolerating: tolerating))
        }
    }

    private func pipelinedCalls(
        _ methods: [DBusMethod], arguments: (DBusMethod) -> DBusArgument?, replyType: String?, autoStart: Bool,
        window: Int, timeout: Duration, cancellation: DBusCancellation?, batch: PipelinedBatch
    ) throws(DBusFailure) -> [DBusValue?] {
        let context = g_main_context_new()
        defer { g_main_context_unref(context) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let type: OpaquePointer? = replyType.map { g_variant_type_new($0) }
        defer { if let type { g_variant_type_free(type) } }
        var next = 0
        // Every call sent is answered (timed-out ones too), and its slot released, before this returns.
        while batch.outstanding > 0 || (next < methods.count && batch.failure == nil) {
            while next < methods.count && batch.outstanding < window && batch.failure == nil {
                let method = methods[next]
                let slot = Unmanaged.passRetained(PipelinedBatch.Slot(batch, next)).toOpaque()
                g_dbus_connection_call(
                    raw, method.destination, method.path, method.interface, method.member, arguments(method)?.raw, type,
                    autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START, Self.milliseconds(timeout), cancellation?.raw,
                    { source, result, slot in
                        let slot = Unmanaged<PipelinedBatch.Slot>.fromOpaque(slot!).takeRetainedValue()
                        slot.batch.finish(OpaquePointer(source), result, index: slot.index)
                    }, slot)
                batch.outstanding += 1
                next += 1
            }
            g_main_context_iteration(context, 1)
        }
        if let failure = batch.failure { throw failure }
        return batch.replies
    }
}

/// The state of one ``DBusConnection/pipelinedCalls(_:arguments:replyType:autoStart:window:timeout:tolerating:)``,
/// touched only by the calling thread (GDBus runs the reply callbacks while that thread iterates its context).
fileprivate final class PipelinedBatch {
    final class Slot {
        let batch: PipelinedBatch
        let index: Int
        init(_ batch: PipelinedBatch, _ index: Int) {
            self.batch = batch
            self.index = index
        }
    }

    var replies: [DBusValue?]
    var failure: DBusFailure?
    var outstanding = 0
    /// Not kept past the batch: the calling thread collects every reply before the batch ends.
    let tolerating: (DBusFailure) -> Bool

    init(count: Int, tolerating: @escaping (DBusFailure) -> Bool) {
        replies = Array(repeating: nil, count: count)
        self.tolerating = tolerating
    }

    func finish(_ connection: OpaquePointer?, _ result: OpaquePointer?, index: Int) {
        outstanding -= 1
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_finish(connection, result, &error) else {
            let failure = DBusFailure(taking: error)
            if !tolerating(failure) && self.failure == nil { self.failure = failure }
            return
        }
        replies[index] = DBusValue(taking: reply)
    }
}
#endif
