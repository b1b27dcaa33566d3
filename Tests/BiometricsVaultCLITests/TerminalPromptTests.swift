import BiometricsVaultTestSupport
import Foundation
import Testing

/// Drives the password prompt in a real terminal: `script` gives the CLI a pty as its controlling
/// terminal; the test types only after the prompt appeared (type-ahead would be echoed by the pty
/// before the prompt turns echo off) and checks that what it typed never comes back.
@Suite(.onTestThreads) final class TerminalPromptTests {
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }
    deinit { sandbox.remove() }

    @Test func passwordPromptDoesNotEchoWhatIsTyped() async throws {
        let command = shellQuoted([CLISandbox.binary.path, "check-password-prompt"])
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        #expect(try await session.waitFor("Password: "), "no prompt; terminal shows: \(session.text)")
        session.type("typed-secret-42\r")
        let status = try await session.finish()
        #expect(status == 0, "terminal shows: \(session.text)")
        #expect(session.text.contains("read 15 bytes"))
        #expect(!session.text.contains("typed-secret-42"), "the password was echoed")
    }

    @Test func ctrlCAtThePasswordPromptCancels() async throws {
        let command = shellQuoted([CLISandbox.binary.path, "check-password-prompt"])
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        #expect(try await session.waitFor("Password: "))
        session.type("partial\u{03}")
        #expect(try await session.finish() == 3, "Ctrl-C must end with the 'cancelled' status")
        #expect(!session.text.contains("partial"))
    }

    /// The real owner-authentication path: `store --biometrics --authenticator pam` asks PAM, whose
    /// conversation reads the password from the terminal. A wrong password is "authentication failed"
    /// and is never echoed.
    @Test func pamPasswordPromptOnTheTerminal() async throws {
        let credentials = try sandbox.file("creds.json", #"{"token":"t"}"#)
        let command = shellQuoted([
            CLISandbox.binary.path, "store", "pam-item", "--biometrics", "--store", "file", "--authenticator", "pam",
            "--from-file", credentials,
        ])
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        guard try await session.waitFor("assword") else {
            // pam_unix asks nothing for an account without a password (nullok): nothing to type.
            let status = try await session.finish()
            Issue.record("no password prompt (status \(status)): \(session.text)")
            return
        }
        session.type("wrong-password-typed\r")
        let status = try await session.finish()
        #expect(status == 4, "terminal shows: \(session.text)")
        #expect(!session.text.contains("wrong-password-typed"), "the password was echoed")
        #expect(try await sandbox.run(["status", "pam-item", "--store", "file", "--json"]).stdout.jsonObject?["state"] as? String != "locked")
    }
}
