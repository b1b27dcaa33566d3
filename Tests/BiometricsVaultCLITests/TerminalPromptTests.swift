import Foundation
import Testing

/// Drives the password prompt in a real terminal: `script` gives the CLI a pty as its controlling
/// terminal; the test types only after the prompt appeared (type-ahead would be echoed by the pty
/// before the prompt turns echo off) and checks that what it typed never comes back.
@Suite struct TerminalPromptTests {
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }

    /// A program running on a pty, fed through `script`'s stdin.
    final class PTYSession {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        private let buffer = LockedText()

        init(command: String, environment: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-q", "-f", "-e", "-c", command, "/dev/null"]
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            let buffer = buffer
            output.fileHandleForReading.readabilityHandler = { handle in
                buffer.append(handle.availableData)
            }
            try process.run()
        }

        var text: String { buffer.text }

        /// Waits until the terminal shows `marker` (bounded, so a broken prompt fails instead of hanging).
        func waitFor(_ marker: String, seconds: Int = 60) -> Bool {
            for _ in 0..<(seconds * 20) {
                if text.contains(marker) { return true }
                if !process.isRunning { return text.contains(marker) }
                usleep(50_000)
            }
            return false
        }

        func type(_ text: String) {
            input.fileHandleForWriting.write(Data(text.utf8))
        }

        func finish() -> Int32 {
            process.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
            buffer.append(output.fileHandleForReading.readDataToEndOfFile())
            try? input.fileHandleForWriting.close()
            return process.terminationStatus
        }
    }

    final class LockedText: @unchecked Sendable {
        // Safe: every access to `data` holds `lock`.
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.lock(); data.append(more); lock.unlock() }
        var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
    }

    static func shellQuoted(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    @Test func passwordPromptDoesNotEchoWhatIsTyped() throws {
        let command = Self.shellQuoted([CLISandbox.binary.path, "check-password-prompt"])
        let session = try PTYSession(command: command, environment: sandbox.environment)
        #expect(session.waitFor("Password: "), "no prompt; terminal shows: \(session.text)")
        session.type("typed-secret-42\r")
        let status = session.finish()
        #expect(status == 0, "terminal shows: \(session.text)")
        #expect(session.text.contains("read 15 bytes"))
        #expect(!session.text.contains("typed-secret-42"), "the password was echoed")
    }

    @Test func ctrlCAtThePasswordPromptCancels() throws {
        let command = Self.shellQuoted([CLISandbox.binary.path, "check-password-prompt"])
        let session = try PTYSession(command: command, environment: sandbox.environment)
        #expect(session.waitFor("Password: "))
        session.type("partial\u{03}")
        #expect(session.finish() == 3, "Ctrl-C must end with the 'cancelled' status")
        #expect(!session.text.contains("partial"))
    }

    /// The real owner-authentication path: `store --biometrics --authenticator pam` asks PAM, whose
    /// conversation reads the password from the terminal. A wrong password is "authentication failed"
    /// and is never echoed.
    @Test func pamPasswordPromptOnTheTerminal() throws {
        let credentials = try sandbox.file("creds.json", #"{"token":"t"}"#)
        let command = Self.shellQuoted([
            CLISandbox.binary.path, "store", "pam-item", "--biometrics", "--store", "file", "--authenticator", "pam",
            "--from-file", credentials,
        ])
        let session = try PTYSession(command: command, environment: sandbox.environment)
        guard session.waitFor("assword") else {
            // pam_unix asks nothing for an account without a password (nullok): nothing to type.
            let status = session.finish()
            Issue.record("no password prompt (status \(status)): \(session.text)")
            return
        }
        session.type("wrong-password-typed\r")
        let status = session.finish()
        #expect(status == 4, "terminal shows: \(session.text)")
        #expect(!session.text.contains("wrong-password-typed"), "the password was echoed")
        #expect(try sandbox.run(["status", "pam-item", "--store", "file", "--json"]).stdout.jsonObject?["state"] as? String != "locked")
    }
}
