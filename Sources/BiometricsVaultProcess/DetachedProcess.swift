#if os(Linux)
import BiometricsVaultCore
import Glibc

/// Starting a long-lived process of this user (the unlock-window agent, the SSH agent) apart from the
/// one that starts it, and what such a process closes and reads about itself.
package enum DetachedProcess {
    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later), which Glibc's module leaves out (`_GNU_SOURCE`).
    private static let spawnSetSID: Int32 = 0x80

    /// Starts `executable` with `arguments` (the unlock-window agent's, the SSH agent's) outside this
    /// process's session and process tree: `sh` (in a new session, so the agent has no
    /// controlling terminal and no terminal signal reaches it) starts it in the background and exits at
    /// once, so the agent is nobody's child here (a program `exec` runs never sees a stray child). Its
    /// stdin, stdout and stderr are /dev/null: with `--log-file` the unlock-window agent opens its log
    /// itself (``AgentLog/openOwnLog(_:)``), never through a shell redirection that would follow a
    /// symlink planted as `agent.log`.
    package static func start(executable: String, arguments agentArguments: [String]) throws(VaultError) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(Self.spawnSetSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = ["sh", "-c", #""$0" "$@" </dev/null >/dev/null 2>/dev/null &"#, executable] + agentArguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, environ)
        guard spawned == 0 else {
            throw VaultError(.storeUnavailable, underlying: .file(operation: "start \(executable) with", path: "/bin/sh", errno: spawned))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Closes every descriptor above stderr that this process inherited: a long-lived agent must not keep
    /// open the pipe or terminal of the command that started it (a `$(...)`, `script` or test harness
    /// would wait for its end until the agent exits). Inherited ones are those without close-on-exec
    /// (the exec closed the others); what this process opened itself (the runtime's eventfds and epoll)
    /// has it.
    package static func closeInheritedDescriptors() {
        let limit = min(Int32(sysconf(Int32(_SC_OPEN_MAX))), 65_536)
        guard limit > 3 else { return }
        for descriptor in 3..<limit {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { close(descriptor) }
        }
    }

    /// This process's executable (`/proc/self/exe`), to start an agent from.
    package static func currentExecutable() -> String? {
        var bytes = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &bytes, bytes.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
