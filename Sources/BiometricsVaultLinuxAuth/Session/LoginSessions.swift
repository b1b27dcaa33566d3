#if os(Linux)
import BiometricsVaultDBus

/// logind (`org.freedesktop.login1` on the system bus), as the vault service asks it: the login session
/// a process is in, and whether a session is still open. The one place the package calls logind.
///
/// Where no logind runs (no systemd as PID 1: containers, CI machines), every question answers
/// ``Membership/noLogind`` and callers fall back to the kernel's sessions.
package final class LoginSessions: Sendable {
    /// Where a process is, as logind says.
    package enum Membership: Sendable, Equatable {
        /// In the session with this object path (`/org/freedesktop/login1/session/c3`).
        case session(String)
        /// logind runs and the process is in none of its sessions (a service, a process moved to the
        /// user's manager by `systemd-run --user --scope`), or logind did not answer.
        case none
        /// Nobody owns `org.freedesktop.login1`.
        case noLogind
    }

    private static let destination = "org.freedesktop.login1"
    private let connection: DBusConnection?

    /// Connects to the system bus (`nil`: `DBUS_SYSTEM_BUS_ADDRESS` or the well-known socket); without
    /// one, every question answers ``Membership/noLogind``.
    package init(systemBusAddress: String? = nil) {
        connection = try? DBusConnection(systemBusAddress.map(DBusBus.address) ?? .system)
    }

    /// The login session of process `pid`. The caller pins the process (a pidfd it checks alive after
    /// this returns), so that the answer is about that process and not a later one given its pid.
    package func membership(ofProcess pid: UInt32) -> Membership {
        guard let connection else { return .noLogind }
        do throws(DBusFailure) {
            let reply = try connection.call(
                DBusMethod(destination: Self.destination, path: "/org/freedesktop/login1",
                           interface: "org.freedesktop.login1.Manager", member: "GetSessionByPID"),
                .tuple([.uint32(pid)]), replyType: "(o)", autoStart: false)
            guard let path = reply[0].string else { return .none }
            return .session(path)
        } catch {
            return error.kind == .serviceMissing ? .noLogind : .none
        }
    }

    /// Whether the session at `path` still exists and is not closing (its user logged out, or it was
    /// terminated, while some of its processes linger). Any failure to ask answers `false`.
    package func isOpen(_ path: String) -> Bool {
        guard let connection else { return false }
        let state = try? connection.property(
            Self.destination, path: path, interface: "org.freedesktop.login1.Session", name: "State")
        return state?.string == "online" || state?.string == "active"
    }

    /// Whose the seat's active session is, as logind says.
    package enum SeatUser: Sendable, Equatable {
        /// The user with this uid.
        case user(UInt32)
        /// The seat has no active session (nobody logged in at it), or logind did not answer.
        case nobody
        /// Nobody owns `org.freedesktop.login1`.
        case noLogind
    }

    /// The user of the active session of `seat` (`seat0`, where logind puts every device that no rule
    /// gives another seat: the fingerprint reader).
    package func activeUser(ofSeat seat: String = "seat0") -> SeatUser {
        guard let connection else { return .noLogind }
        // Not started by asking: where logind is not running, no activation is tried.
        func property(_ path: String, _ interface: String, _ name: String) throws(DBusFailure) -> DBusValue {
            try connection.call(
                DBusMethod(destination: Self.destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get"),
                .tuple([.string(interface), .string(name)]), replyType: "(v)", autoStart: false)[0].unboxed
        }
        do throws(DBusFailure) {
            // `(so)`: the session's id and object path; an empty id when no session is active.
            let active = try property("/org/freedesktop/login1/seat/\(seat)", "org.freedesktop.login1.Seat", "ActiveSession")
            guard active.count == 2, let id = active[0].string, !id.isEmpty, let path = active[1].string else { return .nobody }
            // `(uo)`: the session's user.
            let user = try property(path, "org.freedesktop.login1.Session", "User")
            guard user.count == 2, let uid = user[0].uint32 else { return .nobody }
            return .user(uid)
        } catch {
            return error.kind == .serviceMissing ? .noLogind : .nobody
        }
    }

    /// The session's name as `loginctl` shows it (`c3`), from its object path, whose last element is
    /// the id with each byte outside `[A-Za-z0-9]` (and a leading digit) written `_XX` in hex.
    package static func id(ofPath path: String) -> String {
        let encoded = Array((path.split(separator: "/").last ?? "").utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < encoded.count {
            if encoded[index] == UInt8(ascii: "_"), index + 2 < encoded.count,
                let byte = UInt8(String(decoding: encoded[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(encoded[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
