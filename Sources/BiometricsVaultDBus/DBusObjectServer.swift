#if os(Linux)
import BiometricsVaultCore
internal import CGio

// The serving side of the package's one D-Bus layer: a well-known name on a bus and the objects under it,
// one (the vault service's) or a tree whose set changes while it runs (a Secret Service provider's
// collections, items, sessions and prompts): GDBus subtrees, each flat (its root and one level below),
// with properties and signals. GDBus does the marshalling, framing, introspection, the Properties
// interface and name ownership; the tree only says which objects exist, what their properties hold and
// what a call does. Nothing here encodes anything itself.

/// The objects a ``DBusObjectServer`` serves. Every requirement is called on the server's thread and must
/// not block for long: a call that waits (a prompt) answers later from another thread.
package protocol DBusObjectTree: AnyObject, Sendable {
    /// The interfaces of the object at `path`; `nil` when there is none.
    func interfaces(at path: String) -> [String]?
    /// The names of the objects one level below `path` (for introspection).
    func children(of path: String) -> [String]
    /// A method call to an object ``interfaces(at:)`` listed.
    func handle(_ call: DBusMethodCall)
    /// A property's value for `sender`; `nil` when the object has no such property.
    func property(_ name: String, interface: String, at path: String, sender: String) -> DBusArgument?
    /// Sets a writable property; `false` when it cannot be set.
    func setProperty(_ name: String, interface: String, at path: String, sender: String, value: DBusValue) -> Bool
    /// A connection left the bus.
    func peerLeft(_ uniqueName: String)
}

/// How a server holds its well-known name.
package enum NameOwnership: Sendable, Equatable {
    /// The name is this server's alone: one already owned fails at once, and no later server may take
    /// it over (the vault service, whose name the system bus's policy gives one user only).
    case exclusive
    /// A later server may take the name over (``DBusObjectServer/run(queueTimeout:whenQueued:ready:)``
    /// ends when it does); `takeOver`: this one takes it from the current owner.
    case replaceable(takeOver: Bool)
}

/// A well-known name on a bus and the objects under it.
///
/// Implementation requirements:
/// - **The bus vouches for the caller.** The sender of a call is the unique name the bus daemon wrote
///   into its header, so no client can speak for another, and ``credentials(of:)`` asks the bus daemon.
/// - **Departures are reported.** The tree's `peerLeft` runs (on the server's thread) with the unique
///   name of every connection that leaves the bus, so work for a caller that disconnected can be stopped.
/// - **Ownership is asked for, never taken by surprise** (``NameOwnership``): a name already owned is
///   `refused` unless this server may take it over from an owner that allows it. The server stops when
///   it loses the name, when ``stop()`` is called, or when its bus connection closes.
///
/// `@unchecked Sendable` is safe: the connection is a ``DBusConnection``; the registrations are read and
/// written only under `registrations`' lock; `emit` and `serve(subtreeAt:)` call GLib functions that are
/// safe from any thread (emitting a signal, registering a subtree); the pointers are freed only in
/// `deinit`.
package final class DBusObjectServer: @unchecked Sendable {
    package let connection: DBusConnection
    package let name: String
    private let node: UnsafeMutablePointer<GDBusNodeInfo>
    private let tree: any DBusObjectTree
    private let ownership: NameOwnership
    private let context: OpaquePointer
    private let stopped = LockedValue(false)
    private let registrations = LockedValue<[String: (id: UInt32, subtree: Unmanaged<Subtree>)]>([:])
    private let box: Unmanaged<Box>
    private let subtreeVTable: UnsafeMutablePointer<GDBusSubtreeVTable>
    private let interfaceVTable: UnsafeMutablePointer<GDBusInterfaceVTable>

    /// `interfaceXML`: one `<node>` declaring every interface any object of the tree has.
    package init(bus: DBusBus, name: String, interfaceXML: String, ownership: NameOwnership, tree: any DBusObjectTree) throws(DBusFailure) {
        connection = try DBusConnection(bus, sharing: .privateConnection)
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(interfaceXML, &error) else { throw DBusFailure(taking: error) }
        self.node = node
        self.name = name
        self.tree = tree
        self.ownership = ownership
        context = g_main_context_new()
        interfaceVTable = .allocate(capacity: 1)
        interfaceVTable.initialize(to: GDBusInterfaceVTable())
        box = Unmanaged.passRetained(Box(tree: tree, node: node, interfaceVTable: interfaceVTable))
        interfaceVTable.pointee.method_call = { _, sender, path, interface, member, parameters, invocation, userData in
            let box = Unmanaged<Box>.fromOpaque(userData!).takeUnretainedValue()
            box.tree.handle(DBusMethodCall(
                invocation: invocation!, sender: sender.map { String(cString: $0) } ?? "",
                member: member.map { String(cString: $0) } ?? "", parameters: parameters!,
                path: path.map { String(cString: $0) } ?? "", interface: interface.map { String(cString: $0) } ?? ""))
        }
        interfaceVTable.pointee.get_property = { _, sender, path, interface, property, error, userData in
            let box = Unmanaged<Box>.fromOpaque(userData!).takeUnretainedValue()
            if let value = box.tree.property(
                String(cString: property!), interface: String(cString: interface!), at: String(cString: path!),
                sender: sender.map { String(cString: $0) } ?? "")
            {
                return value.raw
            }
            // GDBus looked the object up before this call, but a call handled since may have removed it.
            if box.tree.interfaces(at: String(cString: path!)) == nil {
                g_set_error_literal(error, g_dbus_error_quark(), gint(G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue),
                                    "Object does not exist at path \(String(cString: path!))")
            } else {
                g_set_error_literal(error, g_dbus_error_quark(), gint(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "no such property")
            }
            return nil
        }
        interfaceVTable.pointee.set_property = { _, sender, path, interface, property, value, error, userData in
            let box = Unmanaged<Box>.fromOpaque(userData!).takeUnretainedValue()
            if box.tree.setProperty(
                String(cString: property!), interface: String(cString: interface!), at: String(cString: path!),
                sender: sender.map { String(cString: $0) } ?? "", value: DBusValue(borrowing: value!))
            {
                return 1
            }
            g_set_error_literal(error, g_dbus_error_quark(), gint(G_DBUS_ERROR_PROPERTY_READ_ONLY.rawValue), "the property cannot be set")
            return 0
        }
        subtreeVTable = .allocate(capacity: 1)
        subtreeVTable.initialize(to: GDBusSubtreeVTable())
        subtreeVTable.pointee.enumerate = { _, _, _, userData in
            let subtree = Unmanaged<Subtree>.fromOpaque(userData!).takeUnretainedValue()
            let names = subtree.box.tree.children(of: subtree.root)
            let array = g_malloc0_n(gsize(names.count + 1), gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride))!
                .assumingMemoryBound(to: UnsafeMutablePointer<gchar>?.self)
            for (index, name) in names.enumerated() { array[index] = g_strdup(name) }
            return array
        }
        subtreeVTable.pointee.introspect = { _, _, path, node, userData in
            let subtree = Unmanaged<Subtree>.fromOpaque(userData!).takeUnretainedValue()
            let box = subtree.box
            let full = subtree.path(String(cString: path!), node.map { String(cString: $0) })
            guard let names = box.tree.interfaces(at: full) else { return nil }
            let infos = names.compactMap { box.interface(named: $0) }
            let array = g_malloc0_n(gsize(infos.count + 1), gsize(MemoryLayout<UnsafeMutablePointer<GDBusInterfaceInfo>?>.stride))!
                .assumingMemoryBound(to: UnsafeMutablePointer<GDBusInterfaceInfo>?.self)
            for (index, info) in infos.enumerated() { array[index] = g_dbus_interface_info_ref(info) }
            return array
        }
        subtreeVTable.pointee.dispatch = { _, _, path, interface, node, outUserData, userData in
            let subtree = Unmanaged<Subtree>.fromOpaque(userData!).takeUnretainedValue()
            let box = subtree.box
            let full = subtree.path(String(cString: path!), node.map { String(cString: $0) })
            guard let interface, box.tree.interfaces(at: full)?.contains(String(cString: interface)) == true else { return nil }
            outUserData?.pointee = UnsafeMutableRawPointer(box.unmanaged.toOpaque())
            return UnsafePointer(box.interfaceVTable)
        }
    }

    deinit {
        for registration in registrations.withLock({ $0.values }) {
            g_dbus_connection_unregister_subtree(connection.raw, registration.id)
            registration.subtree.release()
        }
        g_main_context_unref(context)
        g_dbus_node_info_unref(node)
        box.release()
        subtreeVTable.deallocate()
        interfaceVTable.deallocate()
    }


    /// Serves the object at `path` and the objects one level below it (from any thread). Serving a path
    /// already served does nothing.
    package func serve(subtreeAt path: String) throws(DBusFailure) {
        // GDBus delivers a registration's calls on the main context that is the thread's default when it
        // is made: the server's, whichever thread registers.
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let result: Result<Void, DBusFailure> = registrations.withLock { registrations in
            guard registrations[path] == nil else { return .success(()) }
            var error: UnsafeMutablePointer<GError>?
            let subtree = Unmanaged.passRetained(Subtree(root: path, box: box.takeUnretainedValue()))
            let id = g_dbus_connection_register_subtree(
                connection.raw, path, subtreeVTable, G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES, subtree.toOpaque(), nil, &error)
            guard id != 0 else {
                subtree.release()
                return .failure(DBusFailure(taking: error))
            }
            registrations[path] = (id, subtree)
            return .success(())
        }
        try result.get()
    }

    /// Stops serving the subtree at `path` (on the server's thread).
    package func stopServing(subtreeAt path: String) {
        guard let registration = registrations.withLock({ $0.removeValue(forKey: path) }) else { return }
        g_dbus_connection_unregister_subtree(connection.raw, registration.id)
        // Its callbacks run on the server's thread only, as this does: none is running now.
        registration.subtree.release()
    }

    /// Emits a signal from `path` to every listener (from any thread).
    package func emit(path: String, interface: String, member: String, _ arguments: DBusArgument?) {
        connection.emit(to: nil, path: path, interface: interface, member: member, arguments)
    }

    /// Ends ``run(queueTimeout:whenQueued:ready:)`` (from any thread): no new call is taken; calls being
    /// handled may still answer.
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

    /// Takes the name and serves calls on the calling thread until ``stop()``, until the name is lost to
    /// a replacement, or until the bus connection closes. `ready` runs once the name is owned.
    ///
    /// Taking over (``NameOwnership/replaceable(takeOver:)``), an owner that allows replacement hands the
    /// name over at once; one that does not keeps it, and this server waits in the bus's queue for it:
    /// `whenQueued` gets the owner's pid (as the bus reports it) to end that owner, and the name comes
    /// when it goes, within `queueTimeout`.
    package func run(
        queueTimeout: Duration = .seconds(10), whenQueued: (UInt32) -> Void = { _ in }, ready: () -> Void = {}
    ) throws(DBusFailure) {
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }

        let departures = g_dbus_connection_signal_subscribe(
            connection.raw, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
            nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                let box = Unmanaged<Box>.fromOpaque(userData!).takeUnretainedValue()
                let change = DBusValue(borrowing: parameters!)
                guard let name = change[0].string, name.hasPrefix(":") else { return }
                if change[1].string == "", change[2].string == name {
                    box.joined.withLock { $0[name] = DBusObjectServer.bootTime() }
                } else if change[2].string == "" {
                    box.joined.withLock { $0[name] = nil }
                    box.tree.peerLeft(name)
                }
            }, box.toOpaque(), nil)
        defer { g_dbus_connection_signal_unsubscribe(connection.raw, departures) }
        let held = Ownership()
        let heldBox = Unmanaged.passRetained(held)
        defer { heldBox.release() }
        var subscriptions: [guint] = []
        for member in ["NameLost", "NameAcquired"] {
            subscriptions.append(g_dbus_connection_signal_subscribe(
                connection.raw, "org.freedesktop.DBus", "org.freedesktop.DBus", member, "/org/freedesktop/DBus",
                name, G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, _, _, member, _, userData in
                    let held = Unmanaged<Ownership>.fromOpaque(userData!).takeUnretainedValue()
                    if String(cString: member!) == "NameAcquired" {
                        held.acquired.withLock { $0 = true }
                    } else {
                        held.lost.withLock { $0 = true }
                    }
                },
                heldBox.toOpaque(), nil))
        }
        defer { for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection.raw, id) } }

        // ALLOW_REPLACEMENT: a later `--replace` (ours or another provider's) may take the name over;
        // REPLACE_EXISTING and a place in the queue only when asked; else DO_NOT_QUEUE: fail at once.
        let takeOver = ownership == .replaceable(takeOver: true)
        let flags: UInt32 = ownership == .exclusive ? 0x4 : 0x1 | (takeOver ? 0x2 : 0x4)
        let bus = DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "")
        func busCall(_ member: String, _ arguments: DBusArgument, _ type: String) throws(DBusFailure) -> DBusValue {
            var method = bus
            method.member = member
            return try connection.call(method, arguments, replyType: type)
        }
        let owner = try? busCall("GetConnectionUnixProcessID", .tuple([.string(name)]), "(u)")[0].uint32
        let reply = try busCall("RequestName", .tuple([.string(name), .uint32(flags)]), "(u)")[0].uint32
        switch reply {
        case 1, 4:
            break
        case 2 where takeOver:
            whenQueued(owner ?? 0)
            let deadline = ContinuousClock.now + queueTimeout
            while !held.acquired.withLock({ $0 }) && ContinuousClock.now < deadline && g_dbus_connection_is_closed(connection.raw) == 0 {
                let source = wakeSource(g_timeout_source_new(100)) {}
                g_source_attach(source, context)
                g_main_context_iteration(context, 1)
                g_source_destroy(source)
                g_source_unref(source)
            }
            guard held.acquired.withLock({ $0 }) else {
                _ = try? busCall("ReleaseName", .tuple([.string(name)]), "(u)")
                throw DBusFailure(name: "org.freedesktop.DBus.Error.AccessDenied", code: 0,
                                  message: "\(name) is still owned by the process that had it (pid \(owner ?? 0)), which does not let it go",
                                  isRemote: false)
            }
        default:
            throw DBusFailure(name: "org.freedesktop.DBus.Error.AccessDenied", code: 0,
                              message: "\(name) is owned by another process (pid \(owner ?? 0))", isRemote: false)
        }
        ready()
        // GDBus reports a closed connection on the context it was made in, not this one: a timer wakes the
        // loop each second to look, so the server ends when its bus goes (a session's logout).
        let tick = g_timeout_source_new(1000)!
        g_source_set_callback(tick, { _ in 1 }, nil, nil)  // G_SOURCE_CONTINUE
        g_source_attach(tick, context)
        defer { g_source_destroy(tick); g_source_unref(tick) }
        while !held.lost.withLock({ $0 }) && !stopped.withLock({ $0 }) && g_dbus_connection_is_closed(connection.raw) == 0 {
            g_main_context_iteration(context, 1)
        }
    }

    /// The caller's identity as the bus daemon knows it.
    package func credentials(of sender: String) throws(DBusFailure) -> DBusPeerCredentials {
        try connection.credentials(of: sender)
    }

    /// When the bus gave `uniqueName` to its connection (`CLOCK_BOOTTIME`, nanoseconds), as the bus's own
    /// `NameOwnerChanged` told this server while it ran; `nil` for a connection it did not see join (one
    /// older than the server, or gone). A process that started after that time did not open the
    /// connection: its pid is a reused one.
    package func joinTime(of uniqueName: String) -> UInt64? {
        box.takeUnretainedValue().joined.withLock { $0[uniqueName] }
    }

    static func bootTime() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private final class Ownership {
        let lost = LockedValue(false)
        let acquired = LockedValue(false)
    }

    /// One registered subtree: its root, for the callbacks, which GDBus gives either the root or the
    /// called object's whole path (it passes the message's path when it dispatches a call, and the
    /// registered one when it introspects), with the node below it.
    private final class Subtree: Sendable {
        let root: String
        let box: Box
        init(root: String, box: Box) {
            self.root = root
            self.box = box
        }

        func path(_ given: String, _ node: String?) -> String {
            guard let node else { return root }
            return given == root ? (root == "/" ? "/\(node)" : "\(root)/\(node)") : given
        }
    }

    /// What every callback needs. `@unchecked Sendable` is safe: every member is immutable, the tree is
    /// `Sendable`, and the node info and vtable it points to are only read, and freed by the server's
    /// `deinit` after every registration that could call back is gone.
    private final class Box: @unchecked Sendable {
        let tree: any DBusObjectTree
        let node: UnsafeMutablePointer<GDBusNodeInfo>
        let interfaceVTable: UnsafeMutablePointer<GDBusInterfaceVTable>
        /// When each connection seen joining the bus got its unique name (``DBusObjectServer/joinTime(of:)``).
        let joined = LockedValue<[String: UInt64]>([:])
        var unmanaged: Unmanaged<Box> { Unmanaged.passUnretained(self) }
        init(tree: any DBusObjectTree, node: UnsafeMutablePointer<GDBusNodeInfo>, interfaceVTable: UnsafeMutablePointer<GDBusInterfaceVTable>) {
            self.tree = tree
            self.node = node
            self.interfaceVTable = interfaceVTable
        }

        func interface(named name: String) -> UnsafeMutablePointer<GDBusInterfaceInfo>? {
            g_dbus_node_info_lookup_interface(node, name)
        }
    }
}
#endif
