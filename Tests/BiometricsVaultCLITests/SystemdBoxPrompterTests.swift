#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension SystemdBoxTests {
    /// The prompter as the package starts it: its user unit in the test user's session, with a real
    /// notification server (dunst on Xvfb, scripts/lib/box-desktop), which logs from its own side what it
    /// shows. Every check of the user is shown there, by the service's words, and withdrawn when it ends.
    @Suite final class Prompts {
        let box: SystemdBox
        /// The step's desktop directory (the host's path): dunst's log is `out/shown.log`.
        let desktop: String
        static let unit = "biometrics-vault-prompter.service"

        init() async throws {
            box = try SystemdBox()
            desktop = try #require(ProcessInfo.processInfo.environment["BV_BOX_DESKTOP"])
            try await box.ensureInstalled()
            try await ensurePrompter()
        }

        deinit { box.remove() }

        /// One notification dunst showed.
        struct Shown: Equatable {
            var id = ""
            var app = ""
            var summary = ""
            var body = ""
        }

        /// What dunst showed, in order.
        func shown() -> [Shown] {
            let log = (try? String(contentsOfFile: desktop + "/out/shown.log", encoding: .utf8)) ?? ""
            // Only entries dunst's script has finished (it writes one in several appends, "---" last).
            return log.components(separatedBy: "---\n").dropLast().compactMap { entry in
                var shown = Shown()
                for line in entry.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("id=") { shown.id = String(line.dropFirst(3)) }
                    if line.hasPrefix("app=") { shown.app = String(line.dropFirst(4)) }
                    if line.hasPrefix("summary=") { shown.summary = String(line.dropFirst(8)) }
                    if line.hasPrefix("body=") { shown.body += (shown.body.isEmpty ? "" : "\n") + line.dropFirst(5) }
                }
                // The text a person reads: dunst reads the body as markup, which the prompter escaped.
                for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
                    shown.body = shown.body.replacingOccurrences(of: entity, with: character)
                }
                return shown.id.isEmpty ? nil : shown
            }
        }

        /// The first notification shown after the first `after` whose summary is `summary` (10 s).
        func waitForShown(after count: Int, summary: String) async throws -> Shown {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if let found = shown().dropFirst(count).first(where: { $0.summary == summary }) { return found }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("no notification \"\(summary)\" was shown: \(shown().dropFirst(count))")
            throw CancellationError()
        }

        /// The pixels drawn (not black) in the screen's top right corner, where dunst draws, in Xvfb's
        /// screen file (XWD, `-fbdir`): a screenshot of what a person would see there. `nil` when the
        /// file is not one Xvfb writes (32 bits a pixel, ZPixmap).
        func drawnPixels() -> Int? {
            guard let screen = FileManager.default.contents(atPath: desktop + "/out/Xvfb_screen0"), screen.count >= 100 else { return nil }
            let bytes = [UInt8](screen)
            func field(_ index: Int) -> Int {
                bytes[(index * 4)..<(index * 4 + 4)].reduce(0) { $0 << 8 | Int($1) }
            }
            let (headerSize, format, width, height) = (field(0), field(2), field(4), field(5))
            let (bitsPerPixel, bytesPerLine, colors) = (field(11), field(12), field(19))
            guard format == 2, bitsPerPixel == 32 else { return nil }
            let start = headerSize + 12 * colors
            guard bytes.count >= start + bytesPerLine * height else { return nil }
            var drawn = 0
            for y in 0..<min(height, 300) {
                for x in max(0, width - 520)..<width {
                    let pixel = start + y * bytesPerLine + x * 4
                    if bytes[pixel] != 0 || bytes[pixel + 1] != 0 || bytes[pixel + 2] != 0 { drawn += 1 }
                }
            }
            return drawn
        }

        /// Waits (5 s) until `condition` holds for the pixels drawn in dunst's corner.
        func waitForScreen(_ condition: (Int) -> Bool) async throws -> Int? {
            let deadline = ContinuousClock.now + .seconds(5)
            var drawn = drawnPixels()
            while !(drawn.map(condition) ?? false), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                drawn = drawnPixels()
            }
            return drawn
        }

        /// How many notifications dunst has on the screen now.
        func displayed() async throws -> Int {
            Int(try await box.run(as: box.user, "dunstctl count displayed").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        /// Waits (10 s) until dunst shows no notification.
        func waitUntilNothingIsDisplayed() async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if try await displayed() == 0 { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// The prompter unit running and registered (a test may have stopped or replaced it).
        func ensurePrompter() async throws {
            let state = try await box.run(as: box.user, "systemctl --user is-active \(Self.unit)").stdout
            guard state.trimmingCharacters(in: .whitespacesAndNewlines) != "active" else { return }
            let started = try await box.run(
                as: box.user, "systemctl --user reset-failed \(Self.unit) 2>/dev/null; sh \(SystemdBox.insideHostTmp(desktop))/prompter-start.sh")
            try #require(started.status == 0, "the prompter unit did not start: \(started.stdout)\(started.stderr)")
        }

        /// The test user's audit entries of `event` (their results) since `since` (a time of this machine).
        func auditResults(_ event: String, since: Int) async throws -> [String] {
            let audit = try await box.run(as: box.user, "\(SystemdBox.cli) audit --json --since \(Int(time(nil)) - since + 1)s")
            let entries = (try? JSONSerialization.jsonObject(with: Data(audit.stdout.utf8))) as? [[String: Any]] ?? []
            return entries.filter { $0["event"] as? String == event }.compactMap { $0["result"] as? String }
        }

        /// A read by a program without a terminal (as an editor runs git, or a desktop app the library):
        /// the notification names the program, its item and how to answer, from the service; it goes when
        /// the finger matches, and the audit says it was shown on the prompter.
        @Test func aCheckWithoutATerminalIsShownOnTheDesktopUntilItEnds() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withCleanup { () async throws -> Void in
                try await box.storeProtected("box-prompted", secret: "shown-on-the-desktop")
                #expect(try await waitUntilNothingIsDisplayed(), "the store's prompt stayed")
                let started = Int(time(nil))
                let before = shown().count
                let box = box
                async let read = box.run(as: box.user, "\(SystemdBox.cli) show box-prompted --field token < /dev/null")
                let prompt = try await waitForShown(after: before, summary: "Touch the fingerprint reader")
                #expect(prompt.app == "BiometricsVault")
                // On the screen: dunst's corner is drawn while the prompt is up, and black once it is gone.
                let drawn = try await waitForScreen { $0 > 1000 }
                #expect((drawn ?? 0) > 1000, "the screen shows no notification: \(String(describing: drawn)) pixels drawn")
                #expect(prompt.body.contains("Asked by pid ") && prompt.body.contains(": biometrics-vault") && prompt.body.contains("box-prompted"), "\(prompt.body)")
                try await box.reader.waitForFingerNeeded()
                try await box.reader.scan(SystemdBox.finger)
                let result = try await read
                #expect(result.status == 0 && result.stdout == "shown-on-the-desktop\n", "\(result.stdout)\(result.stderr)")
                #expect(try await waitUntilNothingIsDisplayed(), "the prompt stayed after the check ended")
                let cleared = try await waitForScreen { $0 == 0 }
                #expect(cleared == 0, "the screen still shows the prompt: \(String(describing: cleared)) pixels drawn")
                let results = try await auditResults("authenticate", since: started)
                #expect(results.contains { $0.hasSuffix("finger; shown: prompter") }, "\(results)")
            } cleanup: {
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) reset box-prompted")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// The SSH agent as the package starts it (its user socket unit, enabled by the user) over a key
        /// made in the service: `ssh-add -L` starts it and lists the key; a signature asked by a program
        /// without a terminal is shown on the desktop naming the key and what is signed, and made after
        /// the finger.
        @Test func anSSHSignatureThroughTheSocketUnitIsShownNamingWhatIsSigned() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            let socket = "SSH_AUTH_SOCK=$XDG_RUNTIME_DIR/biometrics-vault/ssh-agent.sock"
            try await withCleanup { () async throws -> Void in
                let enabled = try await box.run(as: box.user, "systemctl --user enable --now biometrics-vault-ssh-agent.socket")
                #expect(enabled.status == 0, "\(enabled.stdout)\(enabled.stderr)")
                let made = try await box.run(as: box.user, "\(SystemdBox.cli) ssh-key generate box-ssh | tee ~/box-ssh.pub")
                #expect(made.status == 0 && made.stdout.hasPrefix("ssh-ed25519 "), "\(made.stdout)\(made.stderr)")
                let listed = try await box.run(as: box.user, "\(socket) ssh-add -L")
                #expect(listed.stdout == made.stdout, "\(listed.stdout)\(listed.stderr)")
                let state = try await box.run(as: box.user, "systemctl --user is-active biometrics-vault-ssh-agent.service")
                #expect(state.stdout == "active\n", "the socket did not start the agent's unit: \(state.stdout)")
                let before = shown().count
                let box = box
                async let signed = box.run(as: box.user, "echo data | \(socket) ssh-keygen -Y sign -n git -f ~/box-ssh.pub")
                let prompt = try await waitForShown(after: before, summary: "Touch the fingerprint reader")
                #expect(prompt.body.contains("SSH key box-ssh: sign a git commit or tag") && prompt.body.contains("ssh-keygen"), "\(prompt.body)")
                try await box.reader.waitForFingerNeeded()
                try await box.reader.scan(SystemdBox.finger)
                let result = try await signed
                #expect(result.status == 0 && result.stdout.contains("BEGIN SSH SIGNATURE"), "\(result.stdout)\(result.stderr)")
                #expect(try await waitUntilNothingIsDisplayed(), "the prompt stayed after the check ended")
            } cleanup: {
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) ssh-key delete box-ssh; rm -f ~/box-ssh.pub")
                _ = try? await box.run(
                    as: box.user, "systemctl --user disable --now biometrics-vault-ssh-agent.socket; systemctl --user stop biometrics-vault-ssh-agent.service")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// A desktop's program without a terminal reading through the Secret Service provider
        /// (`secret-tool`, as a browser or an IDE would): the check the provider asks of the service is
        /// shown, and names the provider (`/usr/bin/biometrics-vault`) and, in its reason, the client; it goes
        /// when the finger matches.
        @Test func secretToolWithoutATerminalIsShownNamingIt() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await box.withProviderChosen(controlling: false) { shell in
                let stored = shown().count
                #expect(try await shell.run(
                    "printf %s behind-the-notification | secret-tool store --label 'Box shown' biometrics-vault:policy biometryAny service bv-box-shown"))
                let before = shown().count
                #expect(before > stored, "storing a protected item showed nothing")
                #expect(try await shell.run("echo \"read=$(secret-tool lookup service bv-box-shown).\""), "the read asked for no finger")
                #expect(shell.terminal.text.contains("read=behind-the-notification."), "\(shell.terminal.text)")
                let prompt = try await waitForShown(after: before, summary: "Touch the fingerprint reader")
                #expect(prompt.body.contains("/usr/bin/biometrics-vault") && prompt.body.contains("secret-tool"), "\(prompt.body)")
                #expect(try await waitUntilNothingIsDisplayed(), "the prompt stayed after the check ended")
                try await shell.run("secret-tool clear service bv-box-shown")
            }
            _ = try? await box.run(["fprintd-delete", box.user])
        }

        /// git run without a terminal (as an editor runs it), through the package's credential helper: the
        /// check is shown naming the helper and git, its parent.
        @Test func gitWithoutATerminalIsShownNamingIt() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            let shell = try await BoxSessionShell(box, as: box.user, controlling: false)
            try await withCleanup { () async throws -> Void in
                #expect(try await shell.run(
                    "printf 'protocol=https\\nhost=box.example\\nusername=u\\npassword=git-shown\\n\\n' | $B git-credential --biometrics store"))
                #expect(try await waitUntilNothingIsDisplayed(), "the store's prompt stayed")
                let before = shown().count
                #expect(try await shell.run("""
                    printf 'protocol=https\\nhost=box.example\\n\\n' | git -c credential.helper= -c "credential.helper=$B git-credential" credential fill
                    """), "git's fill asked for no finger")
                #expect(shell.terminal.text.contains("password=git-shown"), "\(shell.terminal.text)")
                let prompt = try await waitForShown(after: before, summary: "Touch the fingerprint reader")
                let parents = prompt.body.components(separatedBy: "started by ").dropFirst().first?.components(separatedBy: "\n").first ?? ""
                #expect(prompt.body.contains("/usr/bin/biometrics-vault") && parents.components(separatedBy: " < ").contains("git"), "\(prompt.body)")
                #expect(try await waitUntilNothingIsDisplayed(), "the prompt stayed after the check ended")
            } cleanup: {
                _ = try? await shell.run("printf 'protocol=https\\nhost=box.example\\nusername=u\\n\\n' | $B git-credential erase")
                _ = try? await shell.logout()
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// Cancel, picked on the notification as a person picks it (dunst's context menu): the check ends at
        /// once as `userCancel` (exit 3), the prompt goes, and the reader is free for the next check.
        @Test func cancelOnTheNotificationEndsTheCheckAtOnce() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withCleanup { () async throws -> Void in
                try await box.storeProtected("box-cancelled", secret: "never-released")
                #expect(try await waitUntilNothingIsDisplayed(), "the store's prompt stayed")
                let before = shown().count
                let box = box
                async let read = box.run(as: box.user, "\(SystemdBox.cli) show box-cancelled --field token < /dev/null")
                let prompt = try await waitForShown(after: before, summary: "Touch the fingerprint reader")
                try await box.reader.waitForFingerNeeded()
                let picked = try await box.run(as: box.user, "echo '[\(prompt.id),cancel]' > \"$XDG_RUNTIME_DIR/dunst-pick\"; dunstctl context")
                #expect(picked.status == 0, "\(picked.stdout)\(picked.stderr)")
                let result = try await read
                #expect(result.status == 3 && result.stderr.contains("[userCancel]") && !result.stdout.contains("never-released"),
                        "\(result.stdout)\(result.stderr)")
                #expect(try await waitUntilNothingIsDisplayed(), "the cancelled prompt stayed")
                #expect(try await !box.reader.fingerNeeded(), "the reader is still held")
                let shownAgain = try await box.scanned(as: box.user, "\(SystemdBox.cli) show box-cancelled --field token", finger: SystemdBox.finger)
                #expect(shownAgain.status == 0 && shownAgain.text.contains("never-released"), "\(shownAgain.text)")
            } cleanup: {
                _ = try? await box.run(as: box.user, "rm -f \"$XDG_RUNTIME_DIR/dunst-pick\"; \(SystemdBox.cli) reset box-cancelled")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// The package's default, with no prompter running and no terminal: the check is refused at once,
        /// exit 9, saying how to get prompts, and the reader is never claimed.
        @Test func aCheckNothingWouldShowIsRefusedAtOnce() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withCleanup { () async throws -> Void in
                try await box.storeProtected("box-unseen", secret: "not-for-the-unseen")
                try await box.run(as: box.user, "systemctl --user stop \(Self.unit)")
                let refused = try await box.run(as: box.user, "\(SystemdBox.cli) show box-unseen --field token < /dev/null")
                #expect(refused.status == 9 && refused.stderr.contains("biometrics-vault prompter"), "\(refused.stdout)\(refused.stderr)")
                #expect(try await !box.reader.fingerNeeded(), "the refused check claimed the reader")
            } cleanup: {
                try? await ensurePrompter()
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) reset box-unseen")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// A second prompter of the same user takes over: the service audits it, and the first one says so
        /// on the desktop and exits.
        @Test func aSecondPrompterIsAuditedAndAnnounced() async throws {
            try await withCleanup { () async throws -> Void in
                let started = Int(time(nil))
                let before = shown().count
                let second = try await box.run(as: box.user, "timeout 3 \(SystemdBox.cli) prompter; echo status=$?")
                #expect(second.stdout.contains("status=124"), "\(second.stdout)\(second.stderr)")
                let moved = try await waitForShown(after: before, summary: "Fingerprint prompts moved")
                #expect(moved.body.contains("biometrics-vault"), "\(moved.body)")
                let state = try await box.run(as: box.user, "systemctl --user is-active \(Self.unit)").stdout
                #expect(state.hasPrefix("inactive"), "\(state)")
                let registrations = try await auditResults("prompterRegistered", since: started)
                #expect(registrations.contains { $0.hasPrefix("registered, replacing the prompter :") }, "\(registrations)")
            } cleanup: {
                _ = try? await box.run(as: box.user, "dunstctl close-all")
                try? await ensurePrompter()
            }
        }
    }
}
#endif
