#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The tests of the vault service as desktops run it, in the systemd box that
/// `scripts/extra-tests/75-systemd-box.sh` boots (`scripts/lib/systemd-box.sh`): systemd 252 as PID 1 of
/// namespaces of its own, with logind, its own system bus, polkit, fprintd on the virtual sensor (a drop-in
/// of fprintd's unit), and the `.deb` installed there with `dpkg -i`. One reader and one service: the
/// suites below run one test at a time.
@Suite(.onTestThreads, .serialized, .needs(.ownStep("scripts/extra-tests/75-systemd-box.sh", runsHere: SystemdBox.isRunning)))
enum SystemdBoxTests {}

/// The box seen from the test process: commands run inside through `nsenter` (its mount and pid
/// namespaces), as root, or as a test user logged in by `runuser -l` (a new logind session each time).
struct SystemdBox: Sendable {
    static var isRunning: Bool { ProcessInfo.processInfo.environment["BV_SYSTEMD_BOX_PID"]?.isEmpty == false }
    static let unit = "biometrics-vault.service"
    static let cli = "/usr/bin/biometrics-vault"
    static let finger = "box-user-finger"

    let sandbox: CLISandbox
    /// The host pid of the box's PID 1.
    let pid: String
    /// The `.deb` the step installed.
    let deb: String
    let user: String
    let password: String
    let other: String

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        pid = try #require(environment["BV_SYSTEMD_BOX_PID"])
        deb = try #require(environment["BV_BOX_DEB"])
        user = try #require(environment["BV_TEST_USER"])
        password = try #require(environment["BV_TEST_PASSWORD"])
        other = try #require(environment["BV_TEST_OTHER_USER"])
        sandbox = try CLISandbox()
    }

    func remove() { sandbox.remove() }

    /// The command line prefix that runs a program inside: without this process's `TMPDIR` (CI's is
    /// under the host's `/tmp`, which the box replaces with its own; `mktemp` and `dpkg-deb` fail there).
    var inside: [String] { ["/usr/bin/nsenter", "-t", pid, "-m", "-p", "--", "/usr/bin/env", "-u", "TMPDIR"] }

    /// The box's fprintd and its virtual sensor, whose socket the step put in the host's `/tmp`.
    var reader: VirtualReader {
        VirtualReader(sandbox: sandbox, socketPath: ProcessInfo.processInfo.environment["BV_BOX_FPRINT_SOCKET"], inside: inside)
    }

    /// Runs `words` inside, as root.
    @discardableResult
    func run(_ words: [String], stdin: String? = nil) async throws -> CLIResult {
        try await sandbox.run(executable: URL(fileURLWithPath: inside[0]), Array(inside.dropFirst()) + words, stdin: stdin)
    }

    /// Runs the shell command `script` as `user`, logged in by `runuser -l`: a logind session of its own,
    /// with the user's manager and session bus, and no terminal.
    @discardableResult
    func run(as user: String, _ script: String, stdin: String? = nil) async throws -> CLIResult {
        try await run(["/usr/sbin/runuser", "-l", user, "-c", script], stdin: stdin)
    }

    /// The shell command `script` as `user` in a new logind session, on a terminal of its own (`runuser
    /// --pty`: its controlling terminal); or, `controlling` false, on a pty that is only its standard
    /// input and output (`runuser -c` starts a session without a controlling terminal). `onSeat`: the
    /// session is `seat0`'s, on that virtual terminal (pam_systemd's `XDG_SEAT` and `XDG_VTNR`), and so
    /// the seat's active session when that terminal is the one in front.
    func terminal(as user: String, _ script: String, controlling: Bool = true, onSeat terminal: Int? = nil) async throws -> PTYSession {
        let seat = terminal.map { ["XDG_SEAT=seat0", "XDG_VTNR=\($0)", "XDG_SESSION_TYPE=tty", "XDG_SESSION_CLASS=user"] } ?? []
        return try await PTYSession(
            command: shellQuoted(inside + seat + ["/usr/sbin/runuser"] + (controlling ? ["--pty"] : []) + ["-l", user, "-c", script]),
            environment: sandbox.environment)
    }

    /// Where the box sees `path`, a path under this machine's `/tmp` (its own `/tmp` is another).
    static func insideHostTmp(_ path: String) -> String {
        "/run/host-tmp/" + path.dropFirst("/tmp/".count)
    }

    /// The virtual terminal in front (the kernel's, which the box shares): `/sys/class/tty/tty0/active`.
    static var frontTerminal: Int? {
        (try? String(contentsOfFile: "/sys/class/tty/tty0/active", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("tty".count)) }
    }

    /// Runs `script` on a terminal as `user` and answers the fingerprint prompt with `finger`.
    func scanned(as user: String, _ script: String, finger: String, controlling: Bool = true) async throws -> (status: Int32, text: String) {
        let running = try await terminal(as: user, script, controlling: controlling)
        #expect(try await running.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(running.text)")
        try await reader.waitForFingerNeeded()
        try await reader.scan(finger)
        return try await (running.finish(), running.text)
    }

    /// Stores `secret` as the protected item `key` of the test user (from a file only the user reads,
    /// never from argv), answering the prompt with the enrolled finger.
    func storeProtected(_ key: String, secret: String) async throws {
        try await run(as: user, "\(Self.cli) reset \(key)")
        let stored = try await scanned(
            as: user,
            "umask 077; printf '%s' '{\"token\":\"\(secret)\"}' > ~/\(key).json; \(Self.cli) store \(key) --biometrics --from-file ~/\(key).json; s=$?; rm -f ~/\(key).json; exit $s",
            finger: Self.finger)
        #expect(stored.status == 0, "\(stored.text)")
    }

    /// A property of a unit, as systemd shows it.
    func property(_ name: String, of unit: String = Self.unit) async throws -> String {
        try await run(["systemctl", "show", unit, "-p", name, "--value"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The unit's main pid inside the box, `nil` while it does not run.
    func mainPID() async throws -> Int32? {
        guard let pid = try Int32(await property("MainPID")), pid > 0 else { return nil }
        return pid
    }

    /// Stops the unit and waits until systemd says it is inactive.
    func stopService() async throws {
        try await run(["systemctl", "stop", Self.unit])
        #expect(try await property("ActiveState") == "inactive")
    }

    /// `user` with exactly one finger enrolled in the box's fprintd, whose sensor id is `finger`.
    func enrollOnly(_ user: String, finger: String) async throws {
        try await run(["fprintd-delete", user])
        try await reader.enrollFinger(user: user, finger: finger, as: "right-index-finger")
    }

    /// The `.deb` installed again if a test took it away (a test of removal and purge).
    func ensureInstalled() async throws {
        let status = try await run(["dpkg-query", "-W", "-f", "${Status}", "biometrics-vault"])
        if status.stdout != "install ok installed" {
            let installed = try await run(["env", "DEBIAN_FRONTEND=noninteractive", "dpkg", "-i", deb])
            try #require(installed.status == 0, "dpkg -i: \(installed.stdout)\(installed.stderr)")
        }
    }

    /// The journal's cursor now: what a test logs comes after it.
    func journalCursor() async throws -> String {
        let shown = try await run(["journalctl", "-n", "0", "--show-cursor", "--no-pager"])
        return try #require(shown.stdout.components(separatedBy: "-- cursor: ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The entries of `unit`'s journal after `cursor` (JSON objects, one per entry).
    func journal(after cursor: String, unit: String = Self.unit, user: Bool = false) async throws -> [[String: Any]] {
        let shown = try await run(["journalctl", user ? "--user-unit" : "--unit", unit, "--after-cursor", cursor, "-o", "json", "--no-pager"])
        return shown.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }
}
#endif
