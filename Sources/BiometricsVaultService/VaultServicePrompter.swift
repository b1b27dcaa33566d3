#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus

/// `biometrics-vault prompter`, one per graphical session: registers with the vault service as the
/// user's prompter and draws each check the service announces as a notification of the desktop's
/// notification server (`org.freedesktop.Notifications` on the session bus: GNOME Shell, KDE Plasma,
/// XFCE, dunst, mako), with a Cancel action that ends the check at once. The service writes the text;
/// the prompter only draws it and takes it down when the service withdraws it.
///
/// Two loops, each on a thread of its own: ``serveService(stop:)`` (the service's events, on the
/// system bus) and ``serveNotifications(stop:)`` (the person's answers, on the session bus).
package final class VaultServicePrompter: Sendable {
    /// The notification server's name, object and interface.
    package static let notifications = DBusMethod(
        destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
        interface: "org.freedesktop.Notifications", member: "")
    /// The action key of the Cancel button.
    package static let cancelAction = "cancel"
    /// `NotificationClosed`'s reason when the person closed it.
    private static let dismissed: UInt32 = 2

    private let system: DBusConnection
    private let session: DBusConnection
    /// Each prompt shown: the service's number and the notification's.
    private let shown = LockedValue<[UInt64: UInt32]>([:])
    private let log: @Sendable (String) -> Void

    /// Connects to both buses. `log` gets a line for each thing worth a journal entry (never a secret:
    /// the prompts carry none).
    package init(log: @escaping @Sendable (String) -> Void) throws(VaultError) {
        do throws(DBusFailure) {
            system = try DBusConnection(.system)
            session = try DBusConnection(.session)
        } catch {
            throw VaultServiceInterface.vaultError(error)
        }
        self.log = log
    }

    /// How ``serveService(stop:)`` ended.
    package enum Ending: Equatable, Sendable {
        /// Another program registered as the user's prompter (named as the service saw it).
        case replaced(by: String)
        /// `stop` fired.
        case stopped
    }

    /// Registers and draws the service's prompts until another prompter replaces this one or `stop`
    /// fires. Registers again each time the service starts (its name gets a new owner). Events from any
    /// connection but the name's owner are ignored.
    package func serveService(stop: DBusCancellation) throws(VaultError) -> Ending {
        let interface = VaultServiceInterface.interface
        let subscription = system.subscribe(
            VaultServiceSignal.allCases.map {
                DBusSignalMatch(sender: nil, path: VaultServiceInterface.objectPath, interface: interface, member: $0.rawValue)
            } + [DBusSignalMatch(
                sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameOwnerChanged")])
        var owner: String? = try register()
        log("registered with the vault service as this user's prompter")
        while true {
            guard case .signal(let signal) = subscription.next(until: nil, cancellation: stop) else { return .stopped }
            if signal.interface == "org.freedesktop.DBus" {
                guard signal.parameters[0].string == VaultServiceInterface.busName, signal.parameters[2].string != owner else { continue }
                // The service went (idle, stopped; its prompts with it) or started again: a new one knows
                // no prompter. It is registered with when it starts, never started for that: the service
                // still exits when idle, and a stopped one stays stopped until a program calls it.
                closeAll()
                owner = nil
                guard signal.parameters[2].string?.isEmpty == false else { continue }
                do {
                    owner = try register(starting: false)
                } catch {
                    log("could not register with the vault service that started: \(error.code.name)")
                }
                continue
            }
            guard signal.sender == owner, let event = VaultServicePromptEvent(member: signal.member, parameters: signal.parameters) else {
                continue
            }
            switch event {
            case .shown(let prompt, let summary, let body):
                notify(prompt: prompt, summary: summary, body: body)
            case .withdrawn(let prompt, _):
                if let id = shown.withLock({ $0.removeValue(forKey: prompt) }) { close(id) }
            case .replaced(let by):
                closeAll()
                notify(prompt: nil, summary: "Fingerprint prompts moved", body: "Another program now shows them: \(by)")
                return .replaced(by: by)
            case .checkStarted:
                continue  // sent to the connection whose call it is for, never to a prompter
            }
        }
    }

    /// Ends checks the person cancels: the Cancel action of a prompt, or its notification closed by the
    /// person. Runs until `stop` fires.
    package func serveNotifications(stop: DBusCancellation) {
        let subscription = session.subscribe(["ActionInvoked", "NotificationClosed"].map {
            DBusSignalMatch(sender: nil, path: Self.notifications.path, interface: Self.notifications.interface, member: $0)
        })
        while case .signal(let signal) = subscription.next(until: nil, cancellation: stop) {
            guard let id = signal.parameters[0].uint32 else { continue }
            let cancelled = signal.member == "ActionInvoked"
                ? signal.parameters[1].string == Self.cancelAction
                : signal.parameters[1].uint32 == Self.dismissed
            guard cancelled, let prompt = shown.withLock({ all in
                all.first { $0.value == id }.map { all.removeValue(forKey: $0.key); return $0.key }
            }) else { continue }
            do {
                _ = try system.call(
                    VaultServiceInterface.method(.cancelPrompt), VaultServiceRequest.cancelPrompt(prompt: prompt).arguments,
                    replyType: VaultServiceMethod.cancelPrompt.replyType, autoStart: false)
            } catch {
                log("could not cancel prompt \(prompt): \(error.name)")
            }
            // The server closes a notification whose action was invoked only if it is not resident.
            close(id)
        }
    }

    /// Registers this connection as the user's prompter, `starting` the service if it does not run;
    /// returns the service's unique name.
    private func register(starting: Bool = true) throws(VaultError) -> String {
        do throws(DBusFailure) {
            let method = VaultServiceMethod.registerPrompter
            _ = try system.call(
                VaultServiceInterface.method(method), VaultServiceRequest.registerPrompter.arguments, replyType: method.replyType,
                autoStart: starting)
            let reply = try system.call(
                DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                           member: "GetNameOwner"),
                .tuple([.string(VaultServiceInterface.busName)]), replyType: "(s)")
            return reply[0].string ?? ""
        } catch {
            throw VaultServiceInterface.vaultError(error)
        }
    }

    /// Shows a notification that stays until it is withdrawn (no timeout, critical: over a full-screen
    /// window), with a Cancel action for a prompt. A server that fails is logged: the check still runs,
    /// and the terminal line, where there is one, still shows it.
    private func notify(prompt: UInt64?, summary: String, body: String) {
        var method = Self.notifications
        method.member = "Notify"
        let actions: [String] = prompt == nil ? [] : [Self.cancelAction, "Cancel"]
        do {
            method.member = "GetCapabilities"
            let markup = (try? session.call(method, nil, replyType: "(as)"))?[0].strings?.contains("body-markup") ?? false
            method.member = "Notify"
            let reply = try session.call(method, .tuple([
                .string("BiometricsVault"), .uint32(0), .string("fingerprint"), .string(summary),
                .string(markup ? Self.escapingMarkup(body) : body),
                .strings(actions), .vardict([("urgency", .variant(.byte(2))), ("desktop-entry", .variant(.string("biometrics-vault-prompter")))]),
                .int32(prompt == nil ? -1 : 0),
            ]), replyType: "(u)")
            if let prompt, let id = reply[0].uint32 { shown.withLock { $0[prompt] = id } }
        } catch {
            log("the notification server did not show a prompt: \(error.name): \(error.message)")
        }
    }

    /// `text` for a server that reads the body as markup: every name in it is a program's choice (its
    /// own, its parents', the reason it gives), and none may become a link or an image.
    package static func escapingMarkup(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    private func close(_ id: UInt32) {
        var method = Self.notifications
        method.member = "CloseNotification"
        _ = try? session.call(method, .tuple([.uint32(id)]), replyType: "()")
    }

    private func closeAll() {
        for id in shown.withLock({ all in defer { all = [:] }; return Array(all.values) }) { close(id) }
    }
}
#endif
