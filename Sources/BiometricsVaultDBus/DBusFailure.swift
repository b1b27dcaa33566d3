#if os(Linux)
import BiometricsVaultCore
internal import CGio

// The one place a GError or a D-Bus error name becomes something the package reasons about: a
// ``DBusFailure`` (what GDBus reported, classified once into a ``DBusFailure/Kind``, the cause kept as
// `VaultError.Underlying`), and from it a `VaultError` through ``DBusFailure/vaultError(_:explaining:)``
// with the caller's ``DBusErrorMapping``. The choke points say only what their service's own error names
// mean (polkit as a ``DBusErrorMapping``; fprintd as its availability reasons, which carry their codes;
// the Secret Service's IsLocked / NoSuchObject / NoSession are kinds here); none of them reads a GError.

/// A D-Bus or GIO failure as GDBus reported it: the remote error name when the peer sent one
/// (`net.reactivated.Fprint.Error.PermissionDenied`), else the GError domain (`g-io-error-quark`).
package struct DBusFailure: Error, Sendable, Equatable {
    /// What kind of failure this is, whoever reported it.
    package enum Kind: Sendable, Hashable {
        /// No bus at that address, or nobody owns the destination name (not installed, not running).
        case serviceMissing
        /// The call's deadline passed (GDBus's own timeout, or the peer's `NoReply` / `Timeout`).
        case timedOut
        /// The caller cancelled (``DBusCancellation``).
        case cancelled
        /// The connection was closed under the call (the bus or the peer went away).
        case disconnected
        /// The object does not exist (`UnknownObject`, the Secret Service's `NoSuchObject`, or
        /// gnome-keyring's `UnknownMethod` "Object does not exist at path").
        case noSuchObject
        /// The peer is there and does not know the method, interface or property, or refuses the
        /// arguments (`UnknownMethod`, `UnknownInterface`, `UnknownProperty`, `InvalidArgs`, `NotSupported`).
        case refused
        /// The bus or the peer denied access (`org.freedesktop.DBus.Error.AccessDenied`).
        case accessDenied
        /// The Secret Service's `org.freedesktop.Secret.Error.IsLocked`.
        case locked
        /// The Secret Service's `org.freedesktop.Secret.Error.NoSession`, or KWallet's word for it
        /// (`org.qtproject.QtDBus.Error.InvalidObjectPath` "Can't find session P"): the session is gone.
        case noSession
        /// Another error the peer sent: its name says what (see ``DBusFailure/name``).
        case remote
        /// Another local failure (a malformed reply, an I/O error): ``DBusFailure/name`` is the domain.
        case local
    }

    /// The D-Bus error name, or the GError domain when the failure did not come from the peer.
    package var name: String
    package var code: Int32
    package var message: String
    /// Whether `name` is a D-Bus error name sent by the peer (or the bus).
    package var isRemote: Bool
    package var kind: Kind

    package init(name: String, code: Int32, message: String, isRemote: Bool) {
        self.name = name
        self.code = code
        self.message = message
        self.isRemote = isRemote
        kind = Self.classify(name: name, code: code, message: message, isRemote: isRemote)
    }

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

    /// A local failure in GIO's I/O error domain, as GDBus would report it.
    static func io(_ code: GIOErrorEnum, _ message: String) -> DBusFailure {
        DBusFailure(name: ioErrorDomain, code: Int32(code.rawValue), message: message, isRemote: false)
    }

    static let ioErrorDomain = "g-io-error-quark"

    /// The bus or the service is not there at all, or could not be reached (any local failure).
    package var isServiceMissing: Bool { kind == .serviceMissing || !isRemote }

    /// The cause as `VaultError` keeps it: the D-Bus name, or the GError domain and code.
    package var underlying: VaultError.Underlying {
        underlying(message: message)
    }

    /// The cause with `message` in place of GDBus's.
    package func underlying(message: String) -> VaultError.Underlying {
        isRemote ? .dbus(name: name, message: message) : .gError(domain: name, code: code, message: message)
    }

    /// This failure as a `VaultError`: the code `mapping` gives its name or kind, the cause kept. With
    /// `explaining`, that text goes first in the cause's message (so `doctor` says what it means, not
    /// only a D-Bus name).
    package func vaultError(_ mapping: DBusErrorMapping, explaining: String? = nil) -> VaultError {
        let text = explaining.map { "\($0) (\(message))" } ?? message
        return VaultError(mapping.code(for: self), underlying: underlying(message: text))
    }

    private static func classify(name: String, code: Int32, message: String, isRemote: Bool) -> Kind {
        if isRemote {
            switch name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
                "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound",
                "org.freedesktop.DBus.Error.Spawn.ServiceNotFound":
                return .serviceMissing
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
                "org.freedesktop.DBus.Error.TimedOut":
                return .timedOut
            case "org.freedesktop.DBus.Error.Disconnected": return .disconnected
            case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.Secret.Error.NoSuchObject":
                return .noSuchObject
            // gnome-keyring answers a call on a missing object path with UnknownMethod "Object does not exist",
            // and GDBus one on a path whose interfaces are gone (an item deleted meanwhile) with "No such
            // interface Properties": every object GDBus serves has that interface while it exists.
            case "org.freedesktop.DBus.Error.UnknownMethod"
            where message.contains("does not exist")
                || (message.contains("No such interface") && message.contains("org.freedesktop.DBus.Properties")):
                return .noSuchObject
            case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
                "org.freedesktop.DBus.Error.UnknownProperty", "org.freedesktop.DBus.Error.InvalidArgs",
                "org.freedesktop.DBus.Error.NotSupported":
                return .refused
            case "org.freedesktop.DBus.Error.AccessDenied": return .accessDenied
            case "org.freedesktop.Secret.Error.IsLocked": return .locked
            case "org.freedesktop.Secret.Error.NoSession": return .noSession
            // kwalletd5 (5.103) answers a call naming a session it does not know this way, not with NoSession.
            case "org.qtproject.QtDBus.Error.InvalidObjectPath" where message.hasPrefix("Can't find session"):
                return .noSession
            default: return .remote
            }
        }
        guard name == ioErrorDomain else { return .local }
        switch GIOErrorEnum(rawValue: UInt32(bitPattern: code)) {
        case G_IO_ERROR_TIMED_OUT: return .timedOut
        case G_IO_ERROR_CANCELLED: return .cancelled
        case G_IO_ERROR_CLOSED, G_IO_ERROR_BROKEN_PIPE, G_IO_ERROR_CONNECTION_CLOSED: return .disconnected
        // No socket at the address, or nobody listening on it: no bus.
        case G_IO_ERROR_NOT_FOUND, G_IO_ERROR_CONNECTION_REFUSED, G_IO_ERROR_HOST_NOT_FOUND,
            G_IO_ERROR_HOST_UNREACHABLE, G_IO_ERROR_NETWORK_UNREACHABLE:
            return .serviceMissing
        default: return .local
        }
    }
}

/// Which `VaultError` code a service's D-Bus failures mean: the peer's own error names first, then the
/// failure's kind. Each choke point (fprintd, polkit, the Secret Service) declares one.
package struct DBusErrorMapping: Sendable {
    /// Codes for error names the service itself sends (`org.freedesktop.PolicyKit1.Error.Cancelled`).
    package var names: [String: VaultError.Code]
    /// Codes for kinds of failure; a kind not listed is ``otherwise``.
    package var kinds: [DBusFailure.Kind: VaultError.Code]
    /// The code for everything else: the service cannot do the job now.
    package var otherwise: VaultError.Code

    package init(names: [String: VaultError.Code] = [:], kinds: [DBusFailure.Kind: VaultError.Code] = [:],
                 otherwise: VaultError.Code) {
        self.names = names
        self.kinds = kinds
        self.otherwise = otherwise
    }

    package func code(for failure: DBusFailure) -> VaultError.Code {
        names[failure.name] ?? kinds[failure.kind] ?? otherwise
    }
}

#endif
#if os(Linux)
import BiometricsVaultCore

extension DBusFailure {
    /// The failure a `VaultError`'s cause records (``underlying``), for a caller that reasons about an
    /// error after it became a `VaultError` (whether to reconnect, say); `nil` for a cause that is not a
    /// D-Bus or GIO failure. Its ``kind`` is classified as the original's was.
    package init?(recordedIn underlying: VaultError.Underlying?) {
        switch underlying {
        case .dbus(let name, let message)?: self.init(name: name, code: 0, message: message, isRemote: true)
        case .gError(let domain, let code, let message)?: self.init(name: domain, code: code, message: message, isRemote: false)
        case .osStatus?, .laError?, .pam?, .errno?, .file?, .message?, .other?, nil: return nil
        }
    }
}
#endif
