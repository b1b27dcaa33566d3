#if os(Linux)
import BiometricsVaultProcess
import Glibc

/// polkit's text authentication agent (`pkttyagent`), registered for this process (pid and start time)
/// while a password prompt of the vault service is pending: the service asks polkit about this process's
/// system-bus connection, polkitd resolves the connection to this process and asks this agent, which
/// reads the password on the controlling terminal (polkitd checks it, through its own helper and PAM; it
/// never passes through this process). polkit registers agents for processes and sessions only.
///
/// Started only with a controlling terminal, and then it answers for this process even where a desktop
/// agent runs (polkit asks a process's own agent first; one registered with `--fallback` it skips, which
/// without a logind session would leave no agent at all).
final class PolkitTextAgent: Sendable {
    private let pid: pid_t

    private init(pid: pid_t) { self.pid = pid }

    /// Starts the agent and waits (at most 5 s) until it has registered; `nil` when there is no
    /// controlling terminal, no `pkttyagent`, or it could not register (polkit then answers that no
    /// agent could ask, which the caller reports).
    static func start() -> PolkitTextAgent? {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        close(terminal)
        let executable = "/usr/bin/pkttyagent"
        guard access(executable, X_OK) == 0, let startTime = processStartTime() else { return nil }
        var notify: [Int32] = [-1, -1]
        guard pipe(&notify) == 0 else { return nil }
        // Both ends above 3, so that the dup2 below really makes a copy (dup2 onto itself would keep the
        // close-on-exec flag, and the agent would find no fd 3).
        for index in notify.indices {
            let moved = fcntl(notify[index], F_DUPFD_CLOEXEC, 10)
            close(notify[index])
            notify[index] = moved
        }
        guard notify.allSatisfy({ $0 >= 0 }) else {
            for fd in notify where fd >= 0 { close(fd) }
            return nil
        }
        defer { close(notify[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // fd 3 is the notify pipe (dup2 clears its close-on-exec); stdin is not the agent's: it opens
        // the terminal itself.
        posix_spawn_file_actions_adddup2(&actions, notify[1], 3)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let arguments = [executable, "--notify-fd", "3", "--process", "\(getpid()),\(startTime)"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        close(notify[1])
        guard status == 0 else { return nil }
        // Registered when it closes the pipe; an agent that exits closes it too.
        var poller = pollfd(fd: notify[0], events: Int16(POLLIN), revents: 0)
        _ = poll(&poller, 1, 5000)
        return PolkitTextAgent(pid: pid)
    }

    /// This process's start time in clock ticks since boot (field 22 of `/proc/self/stat`), which polkit
    /// pairs with the pid so that a reused pid is another process.
    private static func processStartTime() -> UInt64? { ProcessStat.read(pid: getpid())?.startTime }

    /// Ends the agent and reaps it: SIGTERM, which it answers by giving the terminal back as it found it
    /// (echo on); SIGKILL if it is still there after a second.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
#endif
