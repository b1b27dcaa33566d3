#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The CLI on the file store where the file system is odd: a hostile FIFO, a restrictive umask, and the
/// durability of the very first write (checked in the system-call trace).
@Suite("CLI file store edges", .onTestThreads)
struct FileStoreEdgeCLITests {
    let common = ["--store", "file", "--authenticator", "none"]

    /// `command` under coreutils `timeout`, so a hang fails the test (exit 124) instead of stalling it.
    func runBounded(_ sandbox: CLISandbox, _ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
        try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/timeout"), ["20", CLISandbox.binary.path] + arguments, stdin: stdin)
    }

    var storeRoot: (CLISandbox) -> URL { { $0.root.appendingPathComponent("data/biometrics-vault") } }

    /// Stores `{"v":1}` under `k`; the path of its item file.
    func storeOneItem(_ sandbox: CLISandbox) async throws -> String {
        #expect(try await sandbox.run(["store", "k"] + common, stdin: #"{"v":1}"#).status == 0)
        let root = storeRoot(sandbox)
        let serviceDirectory = try #require(try FileManager.default.contentsOfDirectory(atPath: root.path).first { $0.count == 64 })
        let directory = root.appendingPathComponent(serviceDirectory).path
        let item = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".bvi") })
        return directory + "/" + item
    }

    /// An empty or relative `HOME` with `XDG_DATA_HOME` empty: for a user with a password-database entry
    /// the store goes under that home; for one without (a container's arbitrary uid, run here through
    /// `setpriv`) there is no home, and the store is refused in words, never put under the current directory.
    @Test("HOME=\"\" or a relative HOME never puts the store under the current directory",
        .enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run as a uid without a home"),
        arguments: ["", "relative/home"])
    func emptyHomeIsNotTheCurrentDirectory(home: String) async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let workingDirectory = sandbox.root.appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: workingDirectory, withIntermediateDirectories: true)
        #expect(chmod(sandbox.root.path, 0o755) == 0 && chmod(workingDirectory.path, 0o777) == 0)
        var environment = sandbox.environment
        environment["HOME"] = home
        environment["XDG_DATA_HOME"] = ""
        environment["XDG_STATE_HOME"] = ""
        func run(_ arguments: [String], stdin: String = "", asUserWithoutHome: Bool) async throws -> CLIResult {
            // 54321: no entry in /etc/passwd (checked below), so no home directory at all.
            let (program, words) = asUserWithoutHome
                ? ("/usr/bin/setpriv", ["--reuid=54321", "--regid=54321", "--clear-groups", CLISandbox.binary.path] + arguments)
                : (CLISandbox.binary.path, arguments)
            let result = try await Shell.run(
                program, words, stdin: stdin, environment: environment, replacing: true, workingDirectory: workingDirectory.path)
            return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
        }
        try #require(getpwuid(54321) == nil, "uid 54321 has a password-database entry here")
        let passwdHome = String(cString: try #require(getpwuid(geteuid())?.pointee.pw_dir))
        let status = try await run(["key", "status", "--json"], asUserWithoutHome: false)
        #expect(status.stdout.jsonObject?["directory"] as? String == "\(passwdHome)/.local/share/biometrics-vault", "\(status.stdout)")

        let homeless = try await run(["key", "status", "--json"], asUserWithoutHome: true)
        let directory = homeless.stdout.jsonObject?["directory"] as? String ?? ""
        #expect(!directory.hasPrefix(workingDirectory.path), "\(homeless.stdout)")
        let stored = try await run(["store", "k"] + common, stdin: #"{"v":1}"#, asUserWithoutHome: true)
        #expect(stored.status == 6, "\(stored.stderr)")
        #expect(stored.stderr.contains("no home directory"), "\(stored.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workingDirectory.path).isEmpty, "something was created in the current directory")
    }

    @Test("an item file or master.key replaced by a FIFO: show and list fail at once (11 / 6) instead of hanging")
    func fifoInTheStore() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let itemFile = try await storeOneItem(sandbox)
        #expect(unlink(itemFile) == 0)
        #expect(mkfifo(itemFile, 0o600) == 0)
        let shown = try await runBounded(sandbox, ["show", "k"] + common)
        #expect(shown.status == 11, "\(shown.status): \(shown.stderr)")

        let keyFile = storeRoot(sandbox).appendingPathComponent("master.key").path
        #expect(unlink(keyFile) == 0)
        #expect(mkfifo(keyFile, 0o600) == 0)
        let listed = try await runBounded(sandbox, ["list"] + common)
        #expect(listed.status == 6, "\(listed.status): \(listed.stderr)")
    }

    /// Item files are opened with `O_NOATIME`, which the kernel refuses (`EPERM`) on a file the caller
    /// does not own unless the caller is root: a user's own store holding another user's file must still
    /// get the ownership refusal, not a bare "operation not permitted". As root the test runs the CLI as
    /// an unprivileged user (uid 12345), whose store holds one file given to `nobody`.
    @Test("a non-root user's item file owned by another user: show refuses it by name (6), not with EPERM",
          .enabled(if: geteuid() == 0, "needs root to give a file to another user"))
    func foreignItemFileForANonRootUser() async throws {
        var sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let itemFile = try await storeOneItem(sandbox)
        let user: uid_t = 12345
        let chowned = try await sandbox.run(
            executable: URL(fileURLWithPath: "/bin/chown"), ["-R", "\(user):\(user)", sandbox.root.appendingPathComponent("data").path])
        #expect(chowned.status == 0, "\(chowned.stderr)")
        #expect(chown(itemFile, 65534, 65534) == 0)
        #expect(chmod(itemFile, 0o644) == 0)
        chmod(sandbox.root.path, 0o755)
        sandbox.environment["HOME"] = sandbox.root.appendingPathComponent("data").path
        let shown = try await sandbox.run(
            executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--", CLISandbox.binary.path, "show", "k"] + common)
        #expect(shown.status == 6, "\(shown.status): \(shown.stderr)")
        #expect(shown.stderr.contains("it is owned by another user"), "\(shown.stderr)")
        #expect(!shown.stdout.contains(#""v""#))
    }

    /// The umask is set in the command's own process: it is process-wide, and the suite's other tests run
    /// in this one at the same time.
    @Test("under any umask store succeeds and leaves 0700 directories and 0600 files that later commands read", arguments: ["777", "000"])
    func anyUmask(_ mask: String) async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let stored = try await sandbox.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "umask \(mask); " + #"exec "$0" "$@""#, CLISandbox.binary.path, "store", "k"] + common, stdin: #"{"v":1}"#)
        #expect(stored.status == 0, "\(stored.stderr)")
        let shown = try await sandbox.run(["show", "k"] + common)
        #expect(shown.status == 0, "a file written under umask \(mask) could not be read back: \(shown.stderr)")
        #expect(shown.stdout.contains(#""v":1"#))
        #expect(try await sandbox.run(["update", "k"] + common, stdin: #"{"v":2}"#).status == 0)

        let root = storeRoot(sandbox)
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var checked = 0
        for case let relative as String in enumerator {
            let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(relative).path)
            let mode = (attributes[.posixPermissions] as? Int) ?? -1
            let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
            #expect(mode == (isDirectory ? 0o700 : 0o600), "\(relative) has mode \(String(mode, radix: 8))")
            checked += 1
        }
        #expect(checked >= 4)
    }

    @Test(
        "the first store makes every new directory durable: an fsync of its parent follows each mkdir",
        .needs(.executables(["/usr/bin/strace"], remedy: "scripts/install-deps.sh")))
    func firstWriteIsDurable() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let trace = sandbox.root.appendingPathComponent("trace").path
        var traced = sandbox
        // LeakSanitizer (the ASan CI run) cannot stop a traced process's threads; the leak check is
        // the other tests' job.
        traced.environment["ASAN_OPTIONS"] = (sandbox.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let result = try await traced.run(
            executable: URL(fileURLWithPath: "/usr/bin/strace"),
            ["-f", "-qq", "-e", "trace=mkdir,mkdirat,openat,open,fsync,fdatasync", "-o", trace, CLISandbox.binary.path, "store", "k"] + common,
            stdin: #"{"v":1}"#)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(decoding: FileManager.default.contents(atPath: trace) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)

        // mkdir("/path", 0700) = 0  /  mkdirat(AT_FDCWD, "/path", 0700) = 0
        let created = lines.enumerated().compactMap { index, line -> (Int, String)? in
            guard line.contains("mkdir"), line.hasSuffix("= 0"), let path = quoted(line) else { return nil }
            return (index, path)
        }
        let storeDirectories = created.filter { $0.1.hasPrefix(sandbox.root.path + "/data") }
        #expect(storeDirectories.count >= 3, "expected the data home, the store root and the service directory: \(created)")
        for (index, path) in storeDirectories {
            let parent = (path as NSString).deletingLastPathComponent
            // Later: openat(..., "<parent>", ...O_DIRECTORY...) = N, then fsync(N) = 0.
            let later = lines[(index + 1)...]
            let descriptors = later.compactMap { line -> String? in
                guard line.contains("open"), line.contains("O_DIRECTORY"), quoted(line) == parent,
                    let result = line.split(separator: "=").last?.trimmingCharacters(in: .whitespaces), Int(result) != nil
                else { return nil }
                return result
            }
            let synced = descriptors.contains { fd in later.contains { $0.contains("fsync(\(fd))") && $0.hasSuffix("= 0") } }
            #expect(synced, "no fsync of \(parent) after mkdir \(path)")
        }
    }

    @Test("one damaged item file: list prints the readable keys and exits 11 naming how many cannot be read")
    func listWithADamagedItem() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        #expect(try await sandbox.run(["store", "good"] + common, stdin: #"{"v":1}"#).status == 0)
        let root = storeRoot(sandbox)
        let serviceDirectory = try #require(try FileManager.default.contentsOfDirectory(atPath: root.path).first { $0.count == 64 })
        let directory = root.appendingPathComponent(serviceDirectory).path
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(try await sandbox.run(["store", "bad"] + common, stdin: #"{"v":2}"#).status == 0)
        let damaged = try #require(Set(try FileManager.default.contentsOfDirectory(atPath: directory)).subtracting(before).first)
        var bytes = try #require(FileManager.default.contents(atPath: directory + "/" + damaged))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: directory + "/" + damaged))

        let listed = try await sandbox.run(["list"] + common)
        #expect(listed.status == 11, "\(listed.stderr)")
        #expect(listed.stdout == "good\n")
        #expect(listed.stderr.contains("1 item(s)"))
        #expect(try await sandbox.run(["show", "good"] + common).status == 0)
        #expect(FileManager.default.fileExists(atPath: directory + "/" + damaged), "the damaged item must stay")
    }

    /// The first double-quoted string of a strace line.
    func quoted(_ line: String) -> String? {
        guard let start = line.firstIndex(of: "\"") else { return nil }
        let rest = line[line.index(after: start)...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
#endif
