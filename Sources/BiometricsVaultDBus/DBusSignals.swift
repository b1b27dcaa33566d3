#if os(Linux)
internal import CGio

/// Which signals a ``DBusSignalSubscription`` receives; `nil` matches anything.
package struct DBusSignalMatch: Sendable, Hashable {
    /// The sender's bus name (unique or well-known), or `nil` for any sender.
    package var sender: String?
    package var path: String?
    package var interface: String
    package var member: String

    package init(sender: String?, path: String?, interface: String, member: String) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
    }
}

/// One signal as it arrived.
package struct DBusSignal {
    package var sender: String
    package var path: String
    package var interface: String
    package var member: String
    /// The signal's arguments, a tuple (`(sb)` for fprintd's `VerifyStatus`).
    package var parameters: DBusValue
}

/// How a wait for a signal ended.
package enum DBusSignalWait {
    case signal(DBusSignal)
    /// The wait's deadline passed first.
    case timedOut
    /// The ``DBusCancellation`` passed to the wait fired.
    case cancelled
}

/// Signals matching a set of ``DBusSignalMatch``es on one connection, queued in order until the owner
/// reads them with ``next(until:cancellation:)``.
///
/// Implementation requirements (what every caller may rely on):
/// - **Nothing missed after subscribing** on the same connection: a call made after ``DBusConnection/subscribe(_:)``
///   returned (a `VerifyStart`, a Secret Service `Prompt`) reaches the bus after the match rule, so its
///   signals are queued. A signal some other client causes needs ``DBusConnection/roundTripToBus(timeout:)``
///   first, to be sure the bus has the rule.
/// - **One thread.** Create it, wait on it and drop it on one thread (it is not `Sendable`). Signals are
///   dispatched only while that thread waits in ``next(until:cancellation:)``, on this subscription's own
///   GMainContext: no callback runs anywhere else, and nothing runs after ``cancel()`` or release.
/// - **Bounded.** A wait ends at its deadline or when its ``DBusCancellation`` fires, whichever is first.
package final class DBusSignalSubscription {
    private let connection: DBusConnection
    private let context: OpaquePointer
    private let queue = SignalQueue()
    private var ids: [guint] = []

    init(connection: DBusConnection, matches: [DBusSignalMatch]) {
        self.connection = connection
        context = g_main_context_new()
        // GDBus delivers a subscription's signals on the thread-default context of its subscriber.
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        for match in matches {
            let box = Unmanaged.passRetained(queue).toOpaque()
            ids.append(g_dbus_connection_signal_subscribe(
                connection.raw, match.sender, match.interface, match.member, match.path, nil,
                G_DBUS_SIGNAL_FLAGS_NONE,
                { _, sender, path, interface, member, parameters, userData in
                    guard let parameters, let userData else { return }
                    Unmanaged<SignalQueue>.fromOpaque(userData).takeUnretainedValue().signals.append(DBusSignal(
                        sender: sender.map { String(cString: $0) } ?? "", path: path.map { String(cString: $0) } ?? "",
                        interface: interface.map { String(cString: $0) } ?? "",
                        member: member.map { String(cString: $0) } ?? "", parameters: DBusValue(borrowing: parameters)))
                }, box, { userData in Unmanaged<SignalQueue>.fromOpaque(userData!).release() }))
        }
    }

    deinit {
        cancel()
        g_main_context_unref(context)
    }

    /// The next queued signal, or waits for one until `deadline` (`nil`: no deadline; then a
    /// `cancellation` is what ends the wait) or until `cancellation` fires.
    package func next(until deadline: ContinuousClock.Instant?, cancellation: DBusCancellation? = nil) -> DBusSignalWait {
        if cancellation?.isCancelled == true { return .cancelled }
        // Dispatch what already arrived without blocking.
        while g_main_context_iteration(context, 0) != 0 {}
        if !queue.signals.isEmpty { return .signal(queue.signals.removeFirst()) }
        var woken = false
        let timer = deadline.map { deadline in
            let remaining = ContinuousClock.now.duration(to: deadline)
            // +1 ms: GLib rounds down, and the wait must not end before the deadline.
            let source = wakeSource(g_timeout_source_new(UInt32(DBusConnection.milliseconds(remaining)) + 1)) { woken = true }
            g_source_attach(source, context)
            return source
        }
        defer { if let timer { g_source_destroy(timer); g_source_unref(timer) } }
        // A cancel from another thread only wakes the context; the loop below sees it cancelled.
        let waitingContext = context
        let stop = cancellation.map { CancellationHandler($0) { g_main_context_wakeup(waitingContext) } }
        defer { stop?.disconnect() }
        while queue.signals.isEmpty {
            if cancellation?.isCancelled == true { return .cancelled }
            if woken || deadline.map({ ContinuousClock.now >= $0 }) == true { return .timedOut }
            g_main_context_iteration(context, 1)
        }
        return .signal(queue.signals.removeFirst())
    }

    /// Calls `method` on the subscription's connection and returns its reply, handing each signal that
    /// arrives before the reply to `onSignal`, in order, on this thread: a peer that signals this
    /// connection about the call it is answering (the vault service's `CheckStarted`) is heard while the
    /// call runs, not after. Ends as ``DBusConnection/call(_:_:replyType:autoStart:timeout:cancellation:)``
    /// does: the reply, a failure, its `timeout`, or `cancellation`.
    package func call(
        _ method: DBusMethod, _ arguments: DBusArgument? = nil, replyType: String? = nil,
        timeout: Duration = DBusConnection.defaultTimeout, cancellation: DBusCancellation? = nil,
        onSignal: (DBusSignal) -> Void
    ) throws(DBusFailure) -> DBusValue {
        let type: OpaquePointer? = replyType.map { g_variant_type_new($0) }
        defer { if let type { g_variant_type_free(type) } }
        let pending = PendingReply()
        // GDBus completes an asynchronous call on the caller's thread-default context: this one.
        g_main_context_push_thread_default(context)
        g_dbus_connection_call(
            connection.raw, method.destination, method.path, method.interface, method.member, arguments?.raw, type,
            G_DBUS_CALL_FLAGS_NONE, DBusConnection.milliseconds(timeout), cancellation?.raw,
            { source, result, box in
                let pending = Unmanaged<PendingReply>.fromOpaque(box!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                if let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) {
                    pending.result = .success(DBusValue(taking: reply))
                } else {
                    pending.result = .failure(DBusFailure(taking: error))
                }
            }, Unmanaged.passRetained(pending).toOpaque())
        g_main_context_pop_thread_default(context)
        while true {
            while !queue.signals.isEmpty { onSignal(queue.signals.removeFirst()) }
            if let result = pending.result { return try result.get() }
            g_main_context_iteration(context, 1)
        }
    }

    /// Stops receiving: no signal is queued after this returns. Also done on release.
    package func cancel() {
        guard !ids.isEmpty else { return }
        for id in ids { g_dbus_connection_signal_unsubscribe(connection.raw, id) }
        ids = []
        // GDBus frees each subscription's user data through this context: let it.
        while g_main_context_iteration(context, 0) != 0 {}
    }

    /// The reply of ``call(_:_:replyType:timeout:cancellation:onSignal:)``, set by GDBus's callback while
    /// the owning thread iterates ``context``.
    private final class PendingReply {
        var result: Result<DBusValue, DBusFailure>?
    }

    /// Filled by GDBus's callbacks, which run only while the owning thread iterates ``context``.
    private final class SignalQueue {
        var signals: [DBusSignal] = []
    }
}
#endif
