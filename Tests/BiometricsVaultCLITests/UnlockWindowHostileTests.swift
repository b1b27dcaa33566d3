#if os(Linux)
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The agent against a hostile program of the same user, each attack as that program would run it:
/// raw frames on the agent's socket from processes on ptys of their own (a Python driver that forks,
/// stops the agent, and chooses which pid the next process gets), against the built agent.
///
/// The pid races run in a pid namespace of their own (`unshare --user --pid --mount-proc`): there the
/// driver may set `ns_last_pid` and so give a new process exactly the pid another one just freed, which
/// an attacker gets by forking until the counter wraps.
extension UnlockWindowCLITests {
    static let python = DaemonNeed.executables(["/usr/bin/python3"], remedy: "apt-get install python3")
    /// A user and pid namespace where the test may set `ns_last_pid`.
    static let pidNamespace = DaemonNeed(
        "unprivileged user and pid namespaces (unshare -Urpf)", remedy: "sysctl kernel.unprivileged_userns_clone=1"
    ) {
        await Shell.status("/usr/bin/unshare", ["-Urpf", "--mount-proc", "/bin/sh", "-c", "echo 100 > /proc/sys/kernel/ns_last_pid"]) == 0
            ? nil : "unshare -Urpf cannot set ns_last_pid"
    }

    /// Runs the driver's `scenario` (in a fresh pid namespace when `namespaced`) with this test's agent
    /// directory and the built CLI; the JSON object it prints last.
    func hostile(_ scenario: String, _ arguments: [String] = [], namespaced: Bool = false) async throws -> [String: Any] {
        var environment = sandbox.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let command = ["/usr/bin/python3", "-c", HostileDriver.script, CLISandbox.binary.path, runtime.path, scenario] + arguments
        let output = namespaced
            ? try await Shell.run("/usr/bin/unshare", ["-Urpf", "--mount-proc"] + command, environment: environment)
            : try await Shell.run(command[0], Array(command.dropFirst()), environment: environment)
        let last = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let object = try #require(last.jsonObject, "driver: \(output.status) \(output.stdout) \(output.stderr)")
        return object
    }

    /// A process that connects, sends `storeKey` and exits while the agent is stopped; its pid is then
    /// given to a new process on the terminal that keeps a key. The answer, read by the process that
    /// holds the connection once the agent resumes, carries no key: the agent pinned its peer when
    /// the connection was made. The real terminal's own request still gets the key, and the agent logs it.
    @Test(.needs(UnlockWindowCLITests.python, UnlockWindowCLITests.pidNamespace))
    func aPidGivenToAProcessOnTheTerminalGetsNoKey() async throws {
        let result = try await hostile("reusedPid", namespaced: true)
        #expect(result["kept"] as? String == "keptStoreKey", "\(result)")
        try #require(result["reused"] as? Bool == true, "the race was not set up: \(result)")
        #expect(result["leaked"] as? Bool == false, "the stopped agent handed the terminal's key to another process: \(result)")
        // It was answered, and the answer holds no key (a dropped connection would hold none either).
        #expect(result["attackerAnswer"] is [String: Any], "the agent did not answer the attacker: \(result)")
        #expect(result["victimGotKey"] as? Bool == true, "\(result)")
        let log = result["log"] as? String ?? ""
        let victim = result["victim"] as? Int ?? -1
        #expect(log.contains("handed the key of the store /victim/store to pid \(victim) on tty "), "\(log)")
        #expect(log.components(separatedBy: "handed the key").count == 2, "one key handed out, one line: \(log)")
    }

    /// The terminal's session leader keeps a key and exits; a new process given the leader's pid makes
    /// a session of that number and takes the same pty: it gets no key and sees no window. The key ends
    /// with the first session.
    @Test(.needs(UnlockWindowCLITests.python, UnlockWindowCLITests.pidNamespace))
    func aSessionRecreatedOnTheSameTerminalGetsNoKey() async throws {
        let result = try await hostile("recreatedSession", namespaced: true)
        #expect(result["kept"] as? String == "keptStoreKey", "\(result)")
        try #require(result["sameSession"] as? Bool == true, "the session was not re-created with its number: \(result)")
        #expect(result["sameTerminal"] as? Bool == true, "\(result)")
        #expect(result["leaked"] as? Bool == false, "the re-created session got the old one's key: \(result)")
        #expect(result["windows"] as? Int == 0, "\(result)")
        let log = result["log"] as? String ?? ""
        #expect(log.contains("ended: closed 0 window(s), dropped 1 key(s)"), "\(log)")
    }

    /// A terminal that opens windows in a loop gets a bounded number, and its `status` is still answered.
    @Test(.needs(UnlockWindowCLITests.python)) func windowsPerTerminalAreBoundedAndStatusIsAnswered() async throws {
        let result = try await hostile("manyWindows")
        let opened = result["opened"] as? Int ?? -1
        #expect(opened > 0 && opened <= 32, "\(result)")
        #expect(result["refused"] as? Int == 100 - opened, "\(result)")
        let shown = result["statusWindows"] as? Int ?? -1
        #expect(shown > 0 && shown <= opened, "status was not answered: \(result)")
        #expect(result["renewed"] as? String == "opened", "renewing an open window is not refused: \(result)")
    }

    /// On a passphrase store with no item yet, a key planted in the agent by a process on the terminal
    /// is not used: `store` asks for the passphrase, and the item is then readable with it.
    @Test(.needs(UnlockWindowCLITests.python)) func aPlantedStoreKeyIsNotUsedOnAStoreWithoutItems() async throws {
        var sandbox = sandbox
        sandbox.environment["XDG_RUNTIME_DIR"] = runtime.path
        let wrapped = try await sandbox.run(["key", "passphrase", "--passphrase-stdin"], stdin: "correct horse\n")
        try #require(wrapped.status == 0, "\(wrapped.stderr)")
        let credentials = try sandbox.file("creds.json", #"{"token":"the-real-one"}"#)
        let result = try await hostile("plantedKey", [sandbox.storeDirectory.standardizedFileURL.path, "correct horse", credentials])
        #expect(result["planted"] as? String == "keptStoreKey", "\(result)")
        #expect(result["prompts"] as? Int == 1, "the planted key was used: \(result)")
        #expect(result["status"] as? Int == 0, "\(result)")
        let shown = try await sandbox.run(
            ["show", "newitem", "--field", "token", "--passphrase-stdin", "--store", "file", "--authenticator", "none"], stdin: "correct horse\n")
        #expect(shown.status == 0 && shown.stdout == "the-real-one\n", "\(shown.status) \(shown.stderr)")
    }

    /// Another program of the user listening on the agent's socket and answering every `query` with a
    /// window: a command without a controlling terminal (`setsid`) does not ask it, and is asked to
    /// authenticate as without windows (here: no terminal for PAM, so it fails).
    @Test(.needs(UnlockWindowCLITests.terminalUser, UnlockWindowCLITests.python))
    func aListenerAnsweringWindowGivesNoWindowWithoutATerminal() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            let fake = try await ChildProcess.start(
                "/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/python3", "-c", HostileDriver.fakeAgent, runtime.path])
            defer { fake.terminate() }
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: runtime.path + "/fake-ready") {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(FileManager.default.fileExists(atPath: runtime.path + "/fake-ready"), "the fake agent never listened")
            let detached = try await terminal.run(["show", "item", "--field", "token", "--unlock-window", "60"], prefix: ["setsid", "-w"])
            #expect(detached.status != 0 && !detached.text.contains("inside-the-window"), "\(detached.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// The agent never truncates a stderr it was given, however long: `agent 2>>~/session.log`.
    @Test func theAgentNeverTruncatesTheStderrItWasGiven() async throws {
        let session = runtime.appendingPathComponent("session.log")
        let filler = String(repeating: "s", count: 99) + "\n"
        try Data(String(repeating: filler, count: AgentPaths.maximumLogSize / 100 + 10).utf8).write(to: session)
        let before = try #require(FileManager.default.attributesOfItem(atPath: session.path)[.size] as? Int)
        let log = open(session.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(log >= 0)
        let agent = try await startAgent(stderr: log)
        defer { agent.terminate() }
        for _ in 0..<5 {
            let descriptor = try #require(connectRaw())
            _ = exchangeRaw(descriptor, [0, 0, 0, 5] + Array("{nope".utf8))
            close(descriptor)
        }
        let after = try #require(FileManager.default.attributesOfItem(atPath: session.path)[.size] as? Int)
        #expect(after > before, "the file was truncated: \(before) -> \(after) bytes")
        #expect(CLISandbox.text(of: session).hasPrefix(filler), "the file's start was lost")
    }

    /// `agent.log` planted as a symlink to another file: an agent started on demand neither follows it
    /// nor empties the file it points to.
    @Test func anAgentLogSymlinkIsNotFollowed() async throws {
        try FileManager.default.createDirectory(atPath: paths.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let target = runtime.appendingPathComponent("precious.txt")
        let filler = String(repeating: "p", count: 99) + "\n"
        let contents = Data(String(repeating: filler, count: AgentPaths.maximumLogSize / 100 + 10).utf8)
        try contents.write(to: target)
        try FileManager.default.createSymbolicLink(atPath: paths.log, withDestinationPath: target.path)
        var sandbox = sandbox
        sandbox.environment["XDG_RUNTIME_DIR"] = runtime.path
        let wrapped = try await sandbox.run(["key", "passphrase", "--passphrase-stdin"], stdin: "correct horse\n")
        try #require(wrapped.status == 0, "\(wrapped.stderr)")
        // Keeping the store's key starts the agent on demand (it refuses the key: no terminal here).
        let credentials = try sandbox.file("creds.json", #"{"token":"t"}"#)
        let stored = try await sandbox.run(
            ["store", "item", "--from-file", credentials, "--passphrase-stdin", "--unlock-window", "60", "--store", "file", "--authenticator", "none"],
            stdin: "correct horse\n")
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(client.isListening, "no agent was started")
        // A few lines more for the agent to log (and, before, to rotate the file at).
        for _ in 0..<3 {
            if let descriptor = connectRaw() {
                _ = exchangeRaw(descriptor, [0, 0, 0, 5] + Array("{nope".utf8))
                close(descriptor)
            }
        }
        _ = try? client.send(.lock, startingAgent: false)
        #expect(FileManager.default.contents(atPath: target.path) == contents, "the symlink's target changed")
    }
}

extension HostileDriver {
    /// Listens on `ARGV[1]/biometrics-vault/agent.sock` and answers every request with an open window
    /// for the service and policy it names.
    static let fakeAgent = #"""
import json, os, socket, struct, sys
directory = sys.argv[1] + "/biometrics-vault"
os.makedirs(directory, mode=0o700, exist_ok=True)
os.chmod(directory, 0o700)
path = directory + "/agent.sock"
try:
    os.unlink(path)
except OSError:
    pass
server = socket.socket(socket.AF_UNIX)
server.bind(path)
server.listen(16)
open(sys.argv[1] + "/fake-ready", "w").close()
while True:
    connection, _ = server.accept()
    try:
        length = struct.unpack(">I", connection.recv(4))[0]
        request = json.loads(connection.recv(length))["message"]
        asked = next(iter(request.values()))
        report = {"service": asked.get("service", "biometrics-vault"), "policy": asked.get("policy", "devicePasscode"), "remainingSeconds": 600}
        body = json.dumps({"version": 1, "message": {"window": {"_0": report}}}).encode()
        connection.sendall(struct.pack(">I", len(body)) + body)
    except Exception:
        pass
    finally:
        connection.close()
"""#
}

/// The hostile driver: Python, since each attack needs fork, setsid, TIOCSCTTY and raw frames at
/// chosen moments. Prints one JSON object.
enum HostileDriver {
    static let script = #"""
import fcntl, hashlib, json, os, select, signal, socket, struct, subprocess, sys, termios, time

binary, runtime, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
arguments = sys.argv[4:]
sock_path = runtime + "/biometrics-vault/agent.sock"
stderr_path = runtime + "/agent-stderr"
store = "/victim/store"
key_file = "ab" * 32
victim_key = b"\x42" * 32

def frame(message):
    body = json.dumps({"version": 1, "message": message}).encode()
    return struct.pack(">I", len(body)) + body

def recv_exactly(s, count):
    data = b""
    while len(data) < count:
        try:
            chunk = s.recv(count - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data

def read_answer(s):
    header = recv_exactly(s, 4)
    if header is None:
        return None, None
    body = recv_exactly(s, struct.unpack(">I", header)[0])
    answer = json.loads(body)["message"]
    key = None
    if "storeKey" in answer and answer["storeKey"].get("found"):
        key = recv_exactly(s, 32)
    return answer, key

def ask(message, extra=b""):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock_path)
    s.sendall(frame(message) + extra)
    try:
        return read_answer(s)
    finally:
        s.close()

def name(answer):
    return None if answer is None else next(iter(answer))

def start_agent():
    environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent/bus", DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent/bus")
    agent = subprocess.Popen([binary, "agent", "--idle-exit", "30"], env=environment, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=open(stderr_path, "ab"))
    for _ in range(500):
        try:
            probe = socket.socket(socket.AF_UNIX)
            probe.connect(sock_path)
            probe.close()
            return agent
        except OSError:
            time.sleep(0.02)
    raise SystemExit("the agent never listened")

def lead_session(slave):
    # A new session whose controlling terminal is the pty `slave`.
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

def child(body):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            body()
        except BaseException as error:
            sys.stderr.write("child: %r\n" % (error,))
            code = 1
        os._exit(code)
    return pid

def line(fd):
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            break
        data += chunk
    return data.decode()

def send_line(fd, value):
    os.write(fd, (json.dumps(value) + "\n").encode())

def set_next_pid(pid):
    with open("/proc/sys/kernel/ns_last_pid", "w") as file:
        file.write(str(pid - 1))

result = {}
agent = None
try:
    if scenario == "reusedPid":
        agent = start_agent()
        master, slave = os.openpty()
        commands_r, commands_w = os.pipe()
        replies_r, replies_w = os.pipe()
        def victim():
            lead_session(slave)
            answer, _ = ask({"keepStoreKey": {"store": store, "keyFile": key_file, "seconds": 600}}, victim_key)
            send_line(replies_w, name(answer))
            while True:
                command = os.read(commands_r, 1)
                if command == b"f":
                    send_line(replies_w, child(lambda: time.sleep(20)))
                elif command == b"a":
                    answer, key = ask({"storeKey": {"store": store, "keyFile": key_file}})
                    send_line(replies_w, key == victim_key)
                else:
                    return
        victim_pid = child(victim)
        result["victim"] = victim_pid
        result["kept"] = json.loads(line(replies_r))
        attacker = socket.socket(socket.AF_UNIX)
        attacker.settimeout(10)
        os.kill(agent.pid, signal.SIGSTOP)
        def connect_and_exit():
            os.setsid()
            attacker.connect(sock_path)
            attacker.sendall(frame({"storeKey": {"store": store, "keyFile": key_file}}))
        freed = child(connect_and_exit)
        os.waitpid(freed, 0)
        set_next_pid(freed)
        os.write(commands_w, b"f")
        reused = json.loads(line(replies_r))
        result["reused"] = reused == freed
        os.kill(agent.pid, signal.SIGCONT)
        answer, key = read_answer(attacker)
        result["attackerAnswer"] = answer
        result["leaked"] = key is not None
        os.write(commands_w, b"a")
        result["victimGotKey"] = json.loads(line(replies_r))
        os.write(commands_w, b"q")
        os.kill(reused, signal.SIGKILL)
    elif scenario == "recreatedSession":
        agent = start_agent()
        master, slave = os.openpty()
        terminal = os.ttyname(slave)
        replies_r, replies_w = os.pipe()
        def leader():
            lead_session(slave)
            answer, _ = ask({"keepStoreKey": {"store": store, "keyFile": key_file, "seconds": 600}}, victim_key)
            send_line(replies_w, [name(answer), os.stat(terminal).st_rdev])
        first = child(leader)
        os.close(slave)
        result["kept"], first_terminal = json.loads(line(replies_r))
        os.waitpid(first, 0)
        # Two clock ticks later: /proc's start times count 10 ms ticks.
        time.sleep(0.03)
        set_next_pid(first)
        def again():
            os.setsid()
            descriptor = os.open(terminal, os.O_RDWR)
            fcntl.ioctl(descriptor, termios.TIOCSCTTY, 0)
            with open("/proc/self/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
            answer, key = ask({"storeKey": {"store": store, "keyFile": key_file}})
            status, _ = ask({"status": {}})
            send_line(replies_w, {"pid": os.getpid(), "session": int(fields[3]), "terminal": int(fields[4]),
                                  "leaked": key is not None, "status": status})
        second = child(again)
        seen = json.loads(line(replies_r))
        os.waitpid(second, 0)
        result["sameSession"] = seen["pid"] == first and seen["session"] == first
        result["sameTerminal"] = seen["terminal"] == first_terminal
        result["leaked"] = seen["leaked"]
        result["windows"] = len(seen["status"]["status"]["windows"]) if seen["status"] else -1
        # The agent looks at its sessions once a second: the first one's key goes with its leader. Waited
        # for in its log (a loaded machine runs that look late).
        for _ in range(200):
            with open(stderr_path) as file:
                if "dropped 1 key(s)" in file.read():
                    break
            time.sleep(0.1)
    elif scenario == "manyWindows":
        agent = start_agent()
        master, slave = os.openpty()
        replies_r, replies_w = os.pipe()
        def opener():
            lead_session(slave)
            names = []
            for index in range(100):
                answer, _ = ask({"open": {"service": "s%03d" % index + "x" * 200, "policy": "devicePasscode", "seconds": 600}})
                names.append(name(answer))
            renewed, _ = ask({"open": {"service": "s000" + "x" * 200, "policy": "devicePasscode", "seconds": 600}})
            status, _ = ask({"status": {}})
            send_line(replies_w, {"opened": names.count("opened"), "refused": names.count("refused"), "renewed": name(renewed),
                                  "statusWindows": len(status["status"]["windows"]) if status else None})
        os.waitpid(child(opener), 0)
        result = json.loads(line(replies_r))
    elif scenario == "plantedKey":
        root, passphrase, credentials = arguments
        agent = start_agent()
        with open(root + "/master.key", "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
        master, slave = os.openpty()
        replies_r, replies_w = os.pipe()
        def planter():
            lead_session(slave)
            answer, _ = ask({"keepStoreKey": {"store": root, "keyFile": digest, "seconds": 600}}, b"A" * 32)
            send_line(replies_w, name(answer))
            for descriptor in (0, 1, 2):
                os.dup2(slave, descriptor)
            done = subprocess.run([binary, "store", "newitem", "--from-file", credentials, "--unlock-window", "10m",
                                   "--store", "file", "--authenticator", "none"])
            send_line(replies_w, done.returncode)
        writer = child(planter)
        os.close(slave)
        result["planted"] = json.loads(line(replies_r))
        shown, prompts, status = b"", 0, None
        deadline = time.time() + 120
        while status is None and time.time() < deadline:
            ready, _, _ = select.select([master, replies_r], [], [], 0.5)
            if master in ready:
                try:
                    shown += os.read(master, 4096)
                except OSError:
                    pass
                if shown.count(b"Passphrase for the file store: ") > prompts:
                    prompts += 1
                    os.write(master, passphrase.encode() + b"\n")
            if replies_r in ready:
                status = json.loads(line(replies_r))
        os.waitpid(writer, 0)
        result.update({"prompts": prompts, "status": status, "terminal": shown.decode(errors="replace")})
    else:
        raise SystemExit("unknown scenario " + scenario)
finally:
    if agent is not None:
        agent.terminate()
        agent.wait()
try:
    with open(stderr_path) as file:
        result["log"] = file.read()
except OSError:
    pass
print(json.dumps(result))
"""#
}
#endif
