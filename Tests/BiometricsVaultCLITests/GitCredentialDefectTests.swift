import BiometricsVault
import BiometricsVaultTestSupport
import Foundation
import Testing

@testable import biometrics_vault

/// Regression tests of the git credential helper's defects (issue 32), each driving the built binary as git
/// does (or through `git credential` itself), on the encrypted file store in a sandbox.
@Suite(.onTestThreads) struct GitCredentialDefectTests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    static let helper = ["git-credential"] + plain
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }

    func helper(_ operation: String, _ request: String) async throws -> CLIResult {
        try await sandbox.run(Self.helper + [operation], stdin: request)
    }

    /// A helper that only answers `get` (nothing stored yet: no store directory) said the file-store notice
    /// on every call, and git's own suite compares stderr.
    @Test func helperWritesNothingOnStderrWhenNothingFailed() async throws {
        defer { sandbox.remove() }
        for _ in 0..<2 {
            let missed = try await sandbox.run(["git-credential", "--authenticator", "none", "get"], stdin: "protocol=https\nhost=example.com\n\n")
            #expect(missed.status == 0 && missed.stdout.isEmpty)
            #expect(missed.stderr.isEmpty, "\(missed.stderr)")
        }
        let erased = try await helper("erase", "protocol=https\nhost=example.com\n\n")
        #expect(erased.status == 0 && erased.stderr.isEmpty, "\(erased.stderr)")
        let stored = try await helper("store", "protocol=https\nhost=example.com\nusername=a\npassword=p\n\n")
        #expect(stored.status == 0 && stored.stderr.isEmpty, "\(stored.stderr)")
        let got = try await helper("get", "protocol=https\nhost=example.com\n\n")
        #expect(got.stdout.contains("password=p\n") && got.stderr.isEmpty, "\(got.stderr)")
        // Under `auto` (no session bus: the file store) the same; --verbose still says where the credentials are.
        let auto = try await sandbox.run(["git-credential", "--authenticator", "none", "get"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(auto.status == 0 && auto.stderr.isEmpty, "\(auto.stderr)")
        let verbose = try await sandbox.run(["git-credential", "--authenticator", "none", "--verbose", "get"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(verbose.stderr.contains("file store"), "\(verbose.stderr)")
    }

    /// SSO and token hosts approve an empty username and password: they were never stored.
    @Test func emptyUsernameAndPasswordAreStored() async throws {
        defer { sandbox.remove() }
        await #expect(try helper("store", "protocol=https\nhost=sso.example\nusername=\npassword=\n\n").status == 0)
        let got = try await helper("get", "protocol=https\nhost=sso.example\n\n")
        #expect(got.status == 0)
        #expect(got.stdout == "protocol=https\nhost=sso.example\nusername=\npassword=\n")
        #expect(try await sandbox.run(["list"] + Self.plain).stdout == "git:https:@sso.example\n")
        // An empty username names only the item of the empty username, as git compares them.
        await #expect(try helper("store", "protocol=https\nhost=sso.example\nusername=alice\npassword=p\n\n").status == 0)
        await #expect(try helper("erase", "protocol=https\nhost=sso.example\nusername=\n\n").status == 0)
        #expect(try await sandbox.run(["list"] + Self.plain).stdout == "git:https:alice@sso.example\n")
    }

    /// A value holding `\r\n` is one Character, so a Character check missed it, and a stored item could add
    /// lines (`username=`, `password=`, `host=`) to git's answer.
    @Test("no stored value injects protocol lines", arguments: ["p\r\nusername=evil", "p\nhost=evil.example", "p\rx", "p\u{0}x"])
    func storedLineBreaksNeverReachGit(password: String) async throws {
        defer { sandbox.remove() }
        let item: [String: String] = ["protocol": "https", "host": "example.com", "username": "alice", "password": password]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: item), as: UTF8.self)
        #expect(try await sandbox.run(["store", "git:https:alice@example.com"] + Self.plain, stdin: json).status == 0)
        let got = try await helper("get", "protocol=https\nhost=example.com\n\n")
        #expect(got.stdout.isEmpty, "\(got.stdout.debugDescription)")
        #expect(got.status == 8, "\(got.stderr)")
    }

    /// stdin was decoded leniently: `a\xffb` and `a\xfeb` became one username (U+FFFD), and passwords changed.
    @Test("a request that is not UTF-8 is refused and stores nothing", arguments: [
        [UInt8]("protocol=https\nhost=example.com\nusername=a".utf8) + [0xFF] + [UInt8]("b\npassword=p\n\n".utf8),
        [UInt8]("protocol=https\nhost=example.com\nusername=a\npassword=p".utf8) + [0xC3, 0x28] + [UInt8]("\n\n".utf8),
    ])
    func invalidUTF8IsRefused(request: [UInt8]) async throws {
        defer { sandbox.remove() }
        let stored = try await sandbox.runPiped(Self.helper + ["store"], input: request)
        #expect(stored?.status == 8, "\(stored?.stderr ?? "timed out")")
        #expect(stored?.stderr.contains("UTF-8") == true)
        #expect(try await sandbox.run(["list"] + Self.plain).stdout.isEmpty)
    }

    /// A client writing CRLF lines and waiting for the answer with its end of the pipe open: `get` waited
    /// for `\n\n` forever.
    @Test func crlfRequestDoesNotHang() async throws {
        defer { sandbox.remove() }
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=alice\npassword=p\n\n").status == 0)
        let got = try await sandbox.runPiped(
            Self.helper + ["get"], input: Array("protocol=https\r\nhost=example.com\r\n\r\n".utf8), closeInput: false)
        #expect(got != nil, "get did not answer a CRLF request with stdin open")
        #expect(got?.stdout == "protocol=https\nhost=example.com\nusername=alice\npassword=p\n")
    }

    /// Over 64 KiB the request was cut, and the cut password stored without a word.
    @Test func requestOver64KiBIsRefused() async throws {
        defer { sandbox.remove() }
        let password = String(repeating: "x", count: 70_000)
        let stored = try await helper("store", "protocol=https\nhost=example.com\nusername=alice\npassword=\(password)\n\n")
        #expect(stored.status == 8)
        #expect(stored.stderr.contains("64 KiB"), "\(stored.stderr)")
        #expect(try await sandbox.run(["list"] + Self.plain).stdout.isEmpty)
        // Just under the limit is stored whole.
        let fits = String(repeating: "y", count: 60_000)
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=alice\npassword=\(fits)\n\n").status == 0)
        await #expect(try helper("get", "protocol=https\nhost=example.com\n\n").stdout.contains("password=\(fits)\n"))
    }

    /// Parts the vault refuses in a key (C1, bidi, not NFC, too long) were refused (exit 8); they are encoded.
    @Test("unusual parts are encoded into the key", arguments: [
        ("user\u{85}name", "example.com", nil as String?),
        ("alice", "evil\u{202E}moc.example", nil),
        ("e\u{301}mile", "example.com", nil),
        ("alice", "example.com", String(repeating: "deep/", count: 150) + "repo.git"),
        (String(repeating: "u", count: 400), String(repeating: "h", count: 300) + ".example", String(repeating: "p", count: 600)),
    ])
    func unusualPartsAreEncoded(username: String, host: String, path: String?) async throws {
        defer { sandbox.remove() }
        let pathLine = path.map { "path=\($0)\n" } ?? ""
        let stored = try await helper("store", "protocol=https\nhost=\(host)\n\(pathLine)username=\(username)\npassword=p\n\n")
        #expect(stored.status == 0, "\(stored.stderr)")
        for request in ["protocol=https\nhost=\(host)\n\(pathLine)\n", "protocol=https\nhost=\(host)\n\(pathLine)username=\(username)\n\n"] {
            let got = try await helper("get", request)
            #expect(got.stdout == "protocol=https\nhost=\(host)\nusername=\(username)\npassword=p\n", "\(got.stderr)")
        }
        // The NFC spelling of the same name is another username.
        if username == "e\u{301}mile" {
            await #expect(try helper("get", "protocol=https\nhost=\(host)\nusername=\u{E9}mile\n\n").stdout.isEmpty)
        }
        let keys = try await sandbox.run(["list"] + Self.plain).stdout.split(separator: "\n")
        #expect(keys.count == 1)
        await #expect(try helper("erase", "protocol=https\nhost=\(host)\n\(pathLine)\n").status == 0)
        #expect(try await sandbox.run(["list"] + Self.plain).stdout.isEmpty)
    }

    /// A hand-made item under a git key (not the helper's JSON) made `get` fail before it tried other
    /// usernames, and blocked `store` of that key.
    @Test func handMadeItemBlocksNothing() async throws {
        defer { sandbox.remove() }
        #expect(try await sandbox.run(["store", "git:https:alice@example.com"] + Self.plain, stdin: #"{"note":"mine"}"#).status == 0)
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=bob\npassword=b\n\n").status == 0)
        // alice's item is passed over; bob's answers.
        let got = try await helper("get", "protocol=https\nhost=example.com\n\n")
        #expect(got.status == 0 && got.stderr.isEmpty, "\(got.stderr)")
        #expect(got.stdout == "protocol=https\nhost=example.com\nusername=bob\npassword=b\n")
        // Asked for alice: nothing, silently; git prompts.
        let alice = try await helper("get", "protocol=https\nhost=example.com\nusername=alice\n\n")
        #expect(alice.status == 0 && alice.stdout.isEmpty && alice.stderr.isEmpty)
        // erase leaves it (the helper never answered with it) ...
        await #expect(try helper("erase", "protocol=https\nhost=example.com\n\n").status == 0)
        #expect(try await sandbox.run(["list"] + Self.plain).stdout == "git:https:alice@example.com\n")
        // ... and git's approval of alice replaces it.
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=alice\npassword=a\n\n").status == 0)
        await #expect(try helper("get", "protocol=https\nhost=example.com\nusername=alice\n\n").stdout.contains("password=a\n"))
        // Not JSON at all: passed over as well.
        #expect(try await sandbox.run(["store", "git:https:zed@example.com"] + Self.plain, stdin: #""zed""#).status == 0)
        await #expect(try helper("get", "protocol=https\nhost=example.com\nusername=zed\n\n").stdout.isEmpty)
    }

    /// git approving from several processes at once: the losers of the conditional write printed
    /// `invalidVault` on git's stderr. The last writer wins; nobody fails. 16 helpers started together by
    /// one shell (tight enough that, before, about one in five failed), for three keys, on the file store
    /// and on the Secret Service.
    @Test("concurrent approvals on the file store never fail")
    func concurrentApprovalsNeverFailOnTheFileStore() async throws {
        try await concurrentApprovalsNeverFail(store: "file")
    }

    @Test("concurrent approvals on the Secret Service never fail", .needs(CLINeeds.secretService))
    func concurrentApprovalsNeverFailOnTheSecretService() async throws {
        try await concurrentApprovalsNeverFail(store: "secret-service")
    }

    func concurrentApprovalsNeverFail(store: String) async throws {
        defer { sandbox.remove() }
        var sandbox = sandbox
        let service = "bv-race-\(UUID().uuidString.prefix(8))"
        if store == "secret-service" {
            sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        }
        let helper = shellQuoted([CLISandbox.binary.path, "git-credential", "--service", service, "--store", store, "--authenticator", "none", "store"])
        // xargs -P starts them together and reaps them with waitpid (a shell's `wait` relies on SIGCHLD,
        // which the test process may have blocked).
        let job = "printf 'protocol=https\\nhost=%s.example\\nusername=alice\\npassword=p%s\\n\\n' \"${1%-*}\" \"$1\" | \(helper) 2>\"race-$1.err\"; echo \"$?\" > \"race-$1.status\""
        let script = """
            cd \(shellQuoted([sandbox.root.path])) || exit 1
            for host in a b c; do
                seq 16 | sed "s/^/$host-/" | xargs -P 16 -n 1 sh -c \(shellQuoted([job])) job
            done
            cat race-*.status | sort | uniq -c
            cat race-*.err
            """
        let result = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        #expect(result.stdout == "     48 0\n", "\(result.stdout)")
        for host in ["a", "b", "c"] {
            let got = try await sandbox.run(
                ["git-credential", "--service", service, "--store", store, "--authenticator", "none", "get"],
                stdin: "protocol=https\nhost=\(host).example\n\n")
            #expect(got.stdout.hasPrefix("protocol=https\nhost=\(host).example\nusername=alice\npassword=p"))
            _ = try await sandbox.run(
                ["git-credential", "--service", service, "--store", store, "--authenticator", "none", "erase"],
                stdin: "protocol=https\nhost=\(host).example\n\n")
        }
    }

    /// git 2.41+ sends `password_expiry_utc`: stored and answered, and an expired credential is never answered.
    @Test func expiredCredentialIsNotAnswered() async throws {
        defer { sandbox.remove() }
        let past = Int(Date().timeIntervalSince1970) - 60
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=old\npassword=o\npassword_expiry_utc=\(past)\n\n").status == 0)
        await #expect(try helper("get", "protocol=https\nhost=example.com\nusername=old\n\n").stdout.isEmpty)
        // Without a username, the expired one is passed over for the next.
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=young\npassword=y\npassword_expiry_utc=9999999999\n\n").status == 0)
        let got = try await helper("get", "protocol=https\nhost=example.com\n\n")
        #expect(got.stdout == "protocol=https\nhost=example.com\nusername=young\npassword=y\npassword_expiry_utc=9999999999\n")
    }

    /// Found by Fuzz/FuzzGitCredentialRequest: a part of the key that starts with a combining mark (valid
    /// in a key, so not encoded) is one Character with the separator before it. Keys were picked by a
    /// Character prefix and split at Characters, so such an item was never answered (a protocol starting
    /// with one: not even by name), nor erased.
    @Test("an item whose part starts with a combining mark is answered and erased", arguments: [
        "protocol=\u{591}https\nhost=example.com", "protocol=https\nhost=\u{591}h.example",
        "protocol=https\nhost=example.com\npath=\u{591}org/repo.git",
    ])
    func partStartingWithACombiningMark(request: String) async throws {
        defer { sandbox.remove() }
        await #expect(try helper("store", request + "\nusername=alice\npassword=p\n\n").status == 0)
        await #expect(try helper("get", request + "\nusername=alice\n\n").stdout.contains("password=p\n"))
        let got = try await helper("get", request + "\n\n")
        #expect(got.status == 0 && got.stdout.contains("username=alice\npassword=p\n"), "\(got.stdout) \(got.stderr)")
        await #expect(try helper("erase", request + "\n\n").status == 0)
        #expect(try await sandbox.run(["list"] + Self.plain).stdout.isEmpty)
    }

    /// The same for a username that starts with one (the key joins it to the `:` before it).
    @Test func usernameStartingWithACombiningMarkIsAnsweredWithoutAUsername() async throws {
        defer { sandbox.remove() }
        await #expect(try helper("store", "protocol=https\nhost=example.com\nusername=\u{591}alice\npassword=p\n\n").status == 0)
        let got = try await helper("get", "protocol=https\nhost=example.com\n\n")
        #expect(got.stdout == "protocol=https\nhost=example.com\nusername=\u{591}alice\npassword=p\n", "\(got.stdout) \(got.stderr)")
    }
}

extension CLISandbox {
    /// Runs the CLI with `input` as raw bytes on stdin. With `closeInput: false` stdin is a pipe left open
    /// (a client waiting for the answer): `nil` when the CLI has not exited after `timeout` seconds (killed).
    func runPiped(_ arguments: [String], input: [UInt8], closeInput: Bool = true, timeout: TimeInterval = 20) async throws -> CLIResult? {
        let id = UUID().uuidString
        let output = root.appendingPathComponent("stdout-\(id)")
        let errors = root.appendingPathComponent("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let stdin: ChildProcess.Stream
        var writer: Int32 = -1
        if closeInput {
            let file = root.appendingPathComponent("stdin-\(id)")
            try Data(input).write(to: file)
            stdin = .file(file.path)
        } else {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw TestFailure("pipe failed: errno \(errno)") }
            for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            stdin = .descriptor(ends[0])
            writer = ends[1]
        }
        defer { if writer >= 0 { close(writer) } }
        let process = try await ChildProcess.start(
            Self.binary.path, arguments, environment: environment, replacing: true,
            stdin: stdin, stdout: .file(output.path), stderr: .file(errors.path))
        if writer >= 0 { _ = input.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } }
        guard let exit = try await process.exit(within: timeout) else { return nil }
        return CLIResult(status: exit.code, stdout: Self.text(of: output), stderr: Self.text(of: errors))
    }
}
