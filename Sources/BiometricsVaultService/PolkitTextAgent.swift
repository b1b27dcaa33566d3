#if os(Linux)
import BiometricsVaultDBus
import Glibc

/// polkit's text authentication agent (`pkttyagent`), registered for this process's system-bus
/// connection while a password prompt of the vault service is pending: the service asks polkit about
/// that connection, and polkit asks this agent, which reads the password on the controlling terminal
/// (polkitd checks it, through its own helper and PAM; it never passes through this process).
///
/// Started only with a controlling terminal; `--fallback` leaves a desktop session's agent in charge
/// where one is registered.
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
        guard access(executable, X_OK) == 0,
            let bus = try? DBusConnection(.system, sharing: .processShared), let name = bus.uniqueName
        else { return nil }
        var notify: [Int32] = [-1, -1]
        guard pipe(&notify) == 0 else { return nil }
        for fd in notify { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(notify[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // fd 3 is the notify pipe (dup2 clears its close-on-exec); stdin is not the agent's: it opens
        // the terminal itself.
        posix_spawn_file_actions_adddup2(&actions, notify[1], 3)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let arguments = [executable, "--notify-fd", "3", "--fallback", "--system-bus-name", name]
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

    /// Ends the agent and reaps it.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
#endif
