import BiometricsVaultTestSupport
import Foundation
import Testing

/// What the CLI says on stderr about the session and the store, for scripts and over SSH.
@Suite(.onTestThreads) struct SessionCLITests {
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }

    /// `auto` without a session bus falls back to the file store: said once, when the store does not
    /// exist yet, in one sentence without GError internals; then stderr stays empty on success, as a
    /// cron job's `$(...)` needs. `--verbose` says it every time, with the library's details.
    @Test func fileStoreFallbackIsSaidOnceWithoutLibraryInternals() async throws {
        defer { sandbox.remove() }
        let first = try await sandbox.run(["store", "cron", "--authenticator", "none"], stdin: #"{"token":"t"}"#)
        #expect(first.status == 0)
        #expect(first.stderr.contains("encrypted file store"), "\(first.stderr)")
        #expect(first.stderr.split(separator: "\n").count == 1)
        for detail in ["GError", "quark", "g-io-error"] {
            #expect(!first.stderr.contains(detail), "\(first.stderr)")
        }

        let scripted = try await sandbox.run(["show", "cron", "--field", "token", "--authenticator", "none"])
        #expect(scripted.status == 0)
        #expect(scripted.stdout == "t\n")
        #expect(scripted.stderr.isEmpty, "\(scripted.stderr)")

        for arguments in [["show", "cron", "--verbose", "--authenticator", "none"], ["--verbose", "show", "cron", "--authenticator", "none"]] {
            let verbose = try await sandbox.run(arguments)
            #expect(verbose.status == 0)
            #expect(verbose.stderr.contains("no Secret Service ("), "\(verbose.stderr)")
        }
    }

    @Test("doctor says whether the session is remote", arguments: [
        ([String: String](), "session: local"),
        (["SSH_CONNECTION": "192.0.2.1 50000 192.0.2.2 22"], "session: remote (SSH_CONNECTION is set)"),
        (["SSH_TTY": "/dev/pts/3"], "session: remote (SSH_TTY is set)"),
    ])
    func doctorShowsTheSession(variables: [String: String], line: String) async throws {
        defer { sandbox.remove() }
        var sandbox = sandbox
        for name in ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"] { sandbox.environment[name] = nil }
        sandbox.environment.merge(variables) { $1 }
        let doctor = try await sandbox.run(["doctor"])
        #expect(doctor.status == 0)
        #expect(doctor.stdout.contains("\n" + line))
    }

    @Test func clearLockoutWithoutFingerprintsHasNothingToClear() async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(["clear-lockout", "--store", "file", "--authenticator", "none"])
        #expect(result.status == 0)
        #expect(result.stdout == "fingerprints are not locked out\n")
    }

    @Test("an error's first sentence is in words; GError domains and quark numbers only with --verbose")
    func libraryInternalsOnlyUnderVerbose() async throws {
        var noBus = sandbox
        noBus.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        let plain = try await noBus.run(["show", "k", "--store", "secret-service", "--authenticator", "none"])
        #expect(plain.status == 6)
        #expect(plain.stderr.contains("no session bus"), "\(plain.stderr)")
        #expect(!plain.stderr.contains("quark") && !plain.stderr.contains("GError"), "\(plain.stderr)")
        let verbose = try await noBus.run(["show", "k", "--store", "secret-service", "--authenticator", "none", "--verbose"])
        #expect(verbose.status == 6)
        #expect(verbose.stderr.contains("g-io-error-quark"), "\(verbose.stderr)")
    }
}
