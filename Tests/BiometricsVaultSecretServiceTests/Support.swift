#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import Foundation
import Testing

/// Whether the real Secret Service is there, and whether it must be (CI sets `BV_REQUIRE_DAEMONS=1`).
enum Daemon {
    static let required = ProcessInfo.processInfo.environment["BV_REQUIRE_DAEMONS"] == "1"

    /// The session bus of the test run has an unlocked gnome-keyring (scripts/setup/20-secret-service.sh).
    static let sessionAvailable: Bool = {
        guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil else { return false }
        return SecretServiceStore.probe(timeout: .seconds(2)) == .available
    }()

    /// The binaries to start a private bus + keyring inside a test.
    static let privateKeyringPossible: Bool = ["dbus-daemon", "gnome-keyring-daemon", "gdbus"].allSatisfy {
        Shell.which($0) != nil
    }

    /// Tests run when the daemon is there, and also when it is required (then they fail without it).
    static var runSessionTests: Bool { sessionAvailable || required }
    static var runPrivateKeyringTests: Bool { privateKeyringPossible || required }

    /// The store on the session bus; a clear failure when it is missing.
    static func sessionStore() throws -> SecretServiceStore {
        guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil else {
            throw TestFailure("BV_REQUIRE_DAEMONS=1 but DBUS_SESSION_BUS_ADDRESS is not set: run scripts/setup/20-secret-service.sh")
        }
        let status = SecretServiceStore.probe(timeout: .seconds(2))
        guard status == .available else { throw TestFailure("the Secret Service on the session bus is not usable: \(status)") }
        return try SecretServiceStore()
    }

    /// The python with `keyring` installed by the setup script.
    static func pythonKeyring() throws -> String {
        if let python = ProcessInfo.processInfo.environment["BV_PYTHON_KEYRING"] { return python }
        for candidate in ["\(FileManager.default.currentDirectoryPath)/.build-ci/secret-service/keyring-venv/bin/python", "/usr/bin/python3"] {
            if (try? Shell.run(candidate, ["-c", "import keyring"]))?.status == 0 { return candidate }
        }
        throw TestFailure("python keyring not found: run scripts/setup/20-secret-service.sh (sets BV_PYTHON_KEYRING)")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A unique service name per test, so tests on the shared keyring never see each other's items.
func uniqueService(_ name: String) -> String { "bv-test.\(name).\(UUID().uuidString.prefix(8))" }

/// Runs programs (secret-tool, python, gdbus, the daemons) with secrets passed on stdin, never argv.
enum Shell {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func which(_ program: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// posix_spawn + waitpid (not Foundation's `Process`, whose exit monitoring hung under parallel
    /// tests): pipes are close-on-exec so no other child inherits them, and the child starts with an
    /// empty signal mask (Dispatch worker threads block signals, and daemons we start must stay killable).
    @discardableResult
    static func run(_ program: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        let child = try spawn(program, arguments, environment: environment)
        let pid = child.pid
        let input = [Int32(-1), child.stdin], output = [child.stdout, Int32(-1)], errors = [child.stderr, Int32(-1)]
        let writer = input[1]
        let stdinBytes = Array((stdin ?? "").utf8)
        let errorText = LockedValue("")
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            stdinBytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(writer, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writer)
            group.leave()
        }
        group.enter()
        let errorReader = errors[0]
        DispatchQueue.global().async {
            let text = readAll(errorReader)
            errorText.withLock { $0 = text }
            group.leave()
        }
        let outputText = readAll(output[0])
        group.wait()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exitStatus, stdout: outputText, stderr: errorText.withLock { $0 })
    }

    struct Child {
        var pid: pid_t
        var stdin: Int32
        var stdout: Int32
        var stderr: Int32
    }

    /// Starts `program` with three pipes; the caller owns the returned descriptors.
    static func spawn(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Child {
        let executable = program.hasPrefix("/") ? program : (which(program) ?? program)
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        // pipe() + FD_CLOEXEC under one lock with the spawn: no concurrently spawned child of ours can
        // inherit another's pipe end (which would keep it from ever seeing end-of-file).
        spawnLock.lock()
        var locked = true
        defer { if locked { spawnLock.unlock() } }
        guard pipe(&input) == 0, pipe(&output) == 0, pipe(&errors) == 0 else {
            throw TestFailure("pipe failed: errno \(errno)")
        }
        for fd in input + output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(input[0]); close(output[1]); close(errors[1])
        spawnLock.unlock()
        locked = false
        guard spawned == 0 else {
            close(input[1]); close(output[0]); close(errors[0])
            throw TestFailure("could not start \(program): errno \(spawned)")
        }
        return Child(pid: pid, stdin: input[1], stdout: output[0], stderr: errors[0])
    }

    private static let spawnLock = NSLock()

    /// One line from `fd`, without its newline; throws at end of file.
    static func readLine(_ fd: Int32) throws -> String {
        var line = [UInt8]()
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { throw TestFailure("end of output") }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    private static func readAll(_ fd: Int32) -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { data += buffer[0..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        close(fd)
        return String(decoding: data, as: UTF8.self)
    }

    static func bash(_ script: String, stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        try run("/bin/bash", ["-c", script], stdin: stdin, environment: environment)
    }
}

/// A private session bus with its own gnome-keyring and keyring files in a temp directory, for tests
/// that lock, restart or kill the daemon (the shared session keyring serves tests running in parallel).
final class PrivateKeyring {
    let directory: String
    let address: String
    private let dbusPID: String
    static let password = "bv-private-keyring-password"

    /// - Parameters:
    ///   - withKeyring: `false` gives a bus on which no Secret Service provider runs.
    ///   - activatable: whether the bus may start gnome-keyring (with this directory's data) when a
    ///     message is sent to `org.freedesktop.secrets`; else nothing is ever activated.
    init(withKeyring: Bool = true, activatable: Bool = false) throws {
        directory = try Shell.bash("mktemp -d /tmp/bv-private-keyring.XXXXXX").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.createDirectory(atPath: "\(directory)/data", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(directory)/run", withIntermediateDirectories: true)
        chmod("\(directory)/run", 0o700)
        // A minimal session bus configuration. Its only service directory, when `activatable`, holds
        // gnome-keyring; else nothing is auto-activated, so the daemon runs only when this class starts it.
        var serviceDirectory = ""
        if activatable {
            let daemon = try Shell.bash("command -v gnome-keyring-daemon").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try FileManager.default.createDirectory(atPath: "\(directory)/services", withIntermediateDirectories: true)
            try """
                [D-BUS Service]
                Name=org.freedesktop.secrets
                Exec=/usr/bin/env XDG_DATA_HOME=\(directory)/data XDG_RUNTIME_DIR=\(directory)/run \(daemon) --start --foreground --components=secrets
                """.write(toFile: "\(directory)/services/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
            serviceDirectory = "<servicedir>\(directory)/services</servicedir>"
        }
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory)/run</listen>
              <auth>EXTERNAL</auth>
              \(serviceDirectory)
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        let fields = try Shell.run(
            "/bin/bash", ["-c", "dbus-daemon --config-file=\"$0/bus.conf\" --fork --nopidfile --print-address=1 --print-pid=1 2>/dev/null | paste -sd' '", directory]
        ).stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count == 2, !fields[0].isEmpty else { throw TestFailure("could not start a private dbus-daemon") }
        address = fields[0]
        dbusPID = fields[1]
        if withKeyring { try startKeyring(password: Self.password) }
    }

    var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "XDG_DATA_HOME": "\(directory)/data", "XDG_RUNTIME_DIR": "\(directory)/run",
         "DISPLAY": "", "WAYLAND_DISPLAY": ""]
    }

    /// Starts (or replaces) gnome-keyring on this bus and unlocks "login" with `password`; a wrong
    /// password leaves the keyring locked (loaded from disk), as after a failed login.
    func startKeyring(password: String) throws {
        let result = try Shell.bash(
            "unset DISPLAY WAYLAND_DISPLAY; gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1 && gdbus wait --session --timeout 10 org.freedesktop.secrets",
            stdin: password, environment: environment)
        guard result.status == 0 else { throw TestFailure("gnome-keyring did not start: \(result.stderr)") }
    }

    /// Locks the login collection (secret-tool lock segfaults on Debian 12; the D-Bus call does not).
    func lock() throws {
        let result = try Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
             "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("Lock failed: \(result.stderr)") }
    }

    /// The PID of the process owning org.freedesktop.secrets on this bus.
    func keyringPID() throws -> String? {
        let result = try Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
             "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets"],
            environment: environment)
        guard result.status == 0 else { return nil }
        return result.stdout.split(whereSeparator: { !$0.isNumber }).last.map(String.init)
    }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) the keyring daemon: a provider that stops answering.
    func signalKeyring(_ signal: String) throws {
        guard let pid = try keyringPID() else { throw TestFailure("no keyring daemon on the private bus") }
        try Shell.run("kill", ["-\(signal)", pid])
    }

    /// Stops the keyring daemon (by PID) and waits until its name is gone from the bus.
    func stopKeyring() throws {
        guard let pid = try keyringPID() else { return }
        try Shell.run("kill", [pid])
        for _ in 0..<100 where try keyringPID() != nil { usleep(20_000) }
    }

    deinit {
        if let pid = try? keyringPID() { _ = try? Shell.run("kill", ["-CONT", pid]); _ = try? Shell.run("kill", [pid]) }
        _ = try? Shell.run("kill", [dbusPID])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
#endif
#if os(Linux)
/// A `SecretServiceTestDriver` process (one store, one connection) talking to a private bus.
final class StoreDriver {
    private let child: Shell.Child

    /// The driver is built next to the test bundle (`swift build --build-tests` builds every target).
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // `swift test` may run ".../debug/X.xctest" or a path inside it.
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent("SecretServiceTestDriver").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return "SecretServiceTestDriver"
    }

    init(environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw TestFailure("SecretServiceTestDriver is not built: run `swift build --build-tests` first")
        }
        child = try Shell.spawn(Self.executable, [], environment: environment)
    }

    /// Sends one command and returns the one-line answer.
    @discardableResult
    func send(_ command: String) throws -> String {
        let bytes = Array((command + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(child.stdin, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("driver stdin closed") }
        do {
            return try Shell.readLine(child.stdout)
        } catch {
            throw TestFailure("driver exited while answering \(command.split(separator: " ").first ?? "")")
        }
    }

    deinit {
        close(child.stdin)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        close(child.stdout)
        close(child.stderr)
    }
}
#endif

#if os(Linux)
/// `dbus-monitor` on a private bus (whose configuration allows eavesdropping), to count the method calls
/// a program makes there. Stopped by ``methodCalls()`` or when released.
final class BusMonitor {
    private let pid: String
    private let log: String
    private let address: String

    init(_ keyring: PrivateKeyring) throws {
        address = keyring.address
        log = "\(keyring.directory)/monitor-\(UUID().uuidString.prefix(8)).log"
        pid = try Shell.run(
            "/bin/bash", ["-c", "dbus-monitor --address \"$0\" >\"$1\" 2>&1 </dev/null & echo $!", keyring.address, log]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Monitoring has begun once the bus took the monitor's name away (BecomeMonitor).
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("member=NameLost") { return }
            usleep(10_000)
        }
        throw TestFailure("dbus-monitor did not start on \(keyring.address)")
    }

    /// Stops the monitor and returns the member names of the method calls it saw, in order.
    func methodCalls() throws -> [String] {
        try capture().split(separator: "\n").filter { $0.hasPrefix("method call ") }.compactMap { line in
            line.range(of: "member=").map { String(line[$0.upperBound...].prefix { !$0.isWhitespace }) }
        }
    }

    /// Stops the monitor and returns everything it printed, once it printed every message sent before:
    /// a loaded machine can leave the monitor's socket unread for seconds after the calls were made. The
    /// bus hands the monitor messages in the order it routed them, so a marker signal sent now is printed
    /// after all of them.
    func capture() throws -> String {
        let marker = "Flushed\(UUID().uuidString.prefix(8))"
        _ = try Shell.run("/usr/bin/dbus-send", ["--address=\(address)", "--type=signal", "/io/github/biometricsvault/Test", "io.github.biometricsvault.Test.\(marker)"])
        var flushed = false
        for _ in 0..<1_000 where !flushed {
            flushed = (try? String(contentsOfFile: log, encoding: .utf8))?.contains("member=\(marker)") ?? false
            if !flushed { usleep(10_000) }
        }
        stop()
        guard flushed else { throw TestFailure("dbus-monitor did not print a marker signal within 10 s") }
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    private func stop() {
        guard !pid.isEmpty else { return }
        _ = try? Shell.run("/bin/bash", ["-c", "kill \"$0\" 2>/dev/null; while kill -0 \"$0\" 2>/dev/null; do sleep 0.01; done", pid])
    }

    deinit { stop() }
}

/// A fake Secret Service provider (python with jeepney) on a private bus, for what gnome-keyring cannot
/// be made to do. Its script prints "ready" once it owns `org.freedesktop.secrets`, then one line per
/// call it wants the test to see.
final class FakeProvider {
    private let child: Shell.Child
    private var stopped = false

    init(script: String, on bus: PrivateKeyring) throws {
        child = try Shell.spawn(try Daemon.pythonKeyring(), ["-c", script], environment: bus.environment)
        guard try Shell.readLine(child.stdout) == "ready" else {
            stop()
            throw TestFailure("the fake provider did not start")
        }
    }

    /// Stops the provider and returns the lines it printed after "ready". Stopping first means a store
    /// that never called cannot make the test wait for a line that never comes.
    func stopAndReadCalls() -> [String] {
        stop()
        var lines = [String]()
        while let line = try? Shell.readLine(child.stdout) { lines.append(line) }
        return lines
    }

    private func stop() {
        guard !stopped else { return }
        stopped = true
        kill(child.pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
    }

    deinit {
        stop()
        close(child.stdin)
        close(child.stdout)
        close(child.stderr)
    }
}
#endif
