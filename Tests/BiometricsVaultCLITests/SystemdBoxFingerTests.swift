#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension SystemdBoxTests {
    /// Items through the activated unit, with fprintd started by its own unit (on the virtual sensor) and
    /// polkit's service, for a user logged in by logind.
    @Suite final class Fingers {
        let box: SystemdBox

        init() async throws {
            box = try SystemdBox()
            try await box.ensureInstalled()
        }

        deinit { box.remove() }

        @Test func plainAndProtectedItemsAreKeptAndAWrongFingerGetsNothing() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withCleanup { () async throws -> Void in
                let stored = try await box.run(as: box.user, "echo '{\"t\":\"plain-in-the-box\"}' | \(SystemdBox.cli) store box-plain")
                #expect(stored.status == 0, "\(stored.stdout)\(stored.stderr)")
                let plain = try await box.run(as: box.user, "\(SystemdBox.cli) show box-plain --field t")
                #expect(plain.stdout == "plain-in-the-box\n", "\(plain.stdout)\(plain.stderr)")

                try await box.storeProtected("box-protected", secret: "behind-the-unit")
                let status = try await box.run(as: box.user, "\(SystemdBox.cli) status box-protected --json")
                #expect(status.stdout.contains(#""state":"locked""#) && status.stdout.contains(#""store":"service""#), "\(status.stdout)\(status.stderr)")
                // Without a terminal and without a finger: the header only.
                let silent = try await box.run(as: box.user, "\(SystemdBox.cli) show box-protected --field token < /dev/null")
                #expect(silent.status != 0 && !silent.stdout.contains("behind-the-unit"), "\(silent.stdout)\(silent.stderr)")
                let shown = try await box.scanned(as: box.user, "\(SystemdBox.cli) show box-protected --field token", finger: SystemdBox.finger)
                #expect(shown.status == 0 && shown.text.contains("behind-the-unit"), "\(shown.text)")
                let wrong = try await box.scanned(as: box.user, "\(SystemdBox.cli) show box-protected --field token", finger: "not-enrolled-anywhere")
                #expect(wrong.status == 4, "\(wrong.text)")
                #expect(!wrong.text.contains("behind-the-unit"))
                // The other user sees none of it.
                let others = try await box.run(as: box.other, "\(SystemdBox.cli) show box-protected")
                #expect(others.status == 2, "\(others.stdout)\(others.stderr)")
            } cleanup: {
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) reset box-plain; \(SystemdBox.cli) reset box-protected")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// Where logind runs, the reader serves the user at the machine: while the other user's session is
        /// the active one of seat0, the test user's finger check is refused at once, without claiming the
        /// reader (a user logged in elsewhere gets no finger meant for the one at the seat); once that
        /// session ends, the same read is asked for a finger and released.
        @Test func anotherUsersActiveSessionOnTheSeatKeepsTheReader() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            let front = try #require(SystemdBox.frontTerminal, "no virtual terminal in front (/sys/class/tty/tty0/active)")
            try await withCleanup { () async throws -> Void in
                try await box.storeProtected("box-seat", secret: "read-at-the-seat")
                let seated = try await box.terminal(as: box.other, "echo seat=$XDG_SESSION_ID.; sleep 600", controlling: false, onSeat: front)
                #expect(try await seated.waitFor("seat="), "\(seated.text)")
                let session = seated.text.components(separatedBy: "seat=").last?.components(separatedBy: ".").first ?? ""
                let active = try await box.run(["loginctl", "show-seat", "seat0", "-p", "ActiveSession", "--value"]).stdout
                #expect(!session.isEmpty && active == session + "\n", "the other user's session \(session) is not seat0's active one: \(active)")

                let refused = try await box.terminal(as: box.user, "\(SystemdBox.cli) show box-seat --field token")
                #expect(try await refused.finish() == 9, "\(refused.text)")
                #expect(refused.text.contains("the active session of seat0") && refused.text.contains("[biometryNotAvailable]"), "\(refused.text)")
                #expect(!refused.text.contains("read-at-the-seat"))
                #expect(try await !box.reader.fingerNeeded(), "the refused check claimed the reader")

                try await box.run(["loginctl", "terminate-session", session])
                _ = try await seated.finish()
                let shown = try await box.scanned(as: box.user, "\(SystemdBox.cli) show box-seat --field token", finger: SystemdBox.finger)
                #expect(shown.status == 0 && shown.text.contains("read-at-the-seat"), "\(shown.text)")
            } cleanup: {
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) reset box-seat")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// Five wrong fingers lock fingerprints out; the password, asked by polkit through the CLI's text
        /// agent on the user's terminal, ends it; then the finger reads again.
        @Test func theLockoutEndsWithThePasswordThroughPolkit() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withCleanup { () async throws -> Void in
                try await box.storeProtected("box-lockout", secret: "after-the-lockout")
                // The fifth without a controlling terminal, where the CLI cannot ask for the password at once.
                for attempt in 1...5 {
                    let wrong = try await box.scanned(
                        as: box.user, "\(SystemdBox.cli) show box-lockout", finger: "not-enrolled-anywhere", controlling: attempt < 5)
                    #expect(wrong.status == (attempt < 5 ? 4 : 5), "attempt \(attempt): \(wrong.text)")
                }
                let locked = try await box.run(as: box.user, "\(SystemdBox.cli) show box-lockout")
                #expect(locked.status == 5, "\(locked.stdout)\(locked.stderr)")
                #expect(!locked.stdout.contains("after-the-lockout"))

                let clearing = try await box.terminal(as: box.user, "\(SystemdBox.cli) clear-lockout")
                let asked = try await clearing.waitFor("Password:")
                #expect(asked, "no password prompt: \(clearing.text)")
                let quiet = try await clearing.waitForEchoOff()
                #expect(quiet, "the terminal's echo stayed on: \(clearing.text)")
                if asked && quiet { clearing.type(box.password + "\r") }
                #expect(try await clearing.finish() == 0, "\(clearing.text)")
                #expect(!clearing.text.contains(box.password), "the password was echoed")
                let shown = try await box.scanned(as: box.user, "\(SystemdBox.cli) show box-lockout --field token", finger: SystemdBox.finger)
                #expect(shown.status == 0 && shown.text.contains("after-the-lockout"), "\(shown.text)")
            } cleanup: {
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) reset box-lockout")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }
    }
}
#endif
