// Child processes for tests, with posix_spawn: Linux only (the tests that start daemons are).
#if os(Linux)
import BiometricsVaultCore
import Foundation
import Glibc

/// Runs programs (secret-tool, python, gdbus, the daemons) with secrets passed on stdin, never argv.
package enum Shell {
    package struct Output {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    package static func which(_ program: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// posix_spawn + waitpid (not Foundation's `Process`: see ``SpawnedProcess``): pipes are close-on-exec
    /// so no other child inherits them, and the child starts with an empty signal mask (Dispatch worker
    /// threads block signals, and daemons we start must stay killable). The pipes are served on the
    /// calling thread with poll(2), never on a Dispatch queue, whose few threads the other tests may hold.
    @discardableResult
    package static func run(_ program: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        let child = try spawn(program, arguments, environment: environment)
        let pending = Array((stdin ?? "").utf8)
        var written = 0
        var writer: Int32 = child.stdin
        var output = [UInt8](), errors = [UInt8]()
        var readers: [Int32] = [child.stdout, child.stderr]
        if pending.isEmpty { close(writer); writer = -1 }
        // Non-blocking: a write larger than the pipe's free space must not wait while the child waits for
        // us to read its output.
        _ = fcntl(child.stdin, F_SETFL, fcntl(child.stdin, F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while writer >= 0 || !readers.isEmpty {
            var watched = readers.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if writer >= 0 { watched.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            if poll(&watched, nfds_t(watched.count), -1) < 0 {
                if errno == EINTR { continue }
                throw TestFailure("poll failed: errno \(errno)")
            }
            for entry in watched where entry.revents != 0 {
                if entry.fd == writer {
                    let count = pending.withUnsafeBytes { write(writer, $0.baseAddress! + written, pending.count - written) }
                    if count > 0 { written += count }
                    if (count < 0 && errno != EAGAIN && errno != EINTR) || written == pending.count {
                        close(writer)
                        writer = -1
                    }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == child.stdout { output += buffer[0..<count] } else { errors += buffer[0..<count] }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    readers.removeAll { $0 == entry.fd }
                }
            }
        }
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exitStatus, stdout: String(decoding: output, as: UTF8.self), stderr: String(decoding: errors, as: UTF8.self))
    }

    package struct Child: Sendable {
        package var pid: pid_t
        package var stdin: Int32
        package var stdout: Int32
        package var stderr: Int32
    }

    /// Starts `program` with three pipes; the caller owns the returned descriptors.
    package static func spawn(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Child {
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
        var pid: pid_t = 0
        let spawned = start(&pid, executable, arguments, environment: environment, actions: &actions)
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

    /// posix_spawn with an empty signal mask and default handlers: test threads block some signals
    /// (SIGTERM among them), and a daemon started here must stay stoppable. `environment` is added to
    /// this process's, or is the whole environment when `replacing`. Returns posix_spawn's result.
    static func start(
        _ pid: inout pid_t, _ executable: String, _ arguments: [String], environment: [String: String],
        replacing: Bool = false, actions: inout posix_spawn_file_actions_t
    ) -> Int32 {
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
        let merged = replacing ? environment : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        return posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    }

    /// Runs `program` with stdio on /dev/null for at most `seconds`, and returns its exit status; `nil`
    /// when it did not start, died of a signal, or was killed at the bound. For scripts that leave
    /// daemons running: those would hold a pipe open, and reading it to its end would never finish.
    package static func status(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], within seconds: Int = 120
    ) -> Int32? {
        let executable = program.hasPrefix("/") ? program : (which(program) ?? program)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var pid: pid_t = 0
        guard start(&pid, executable, arguments, environment: environment, actions: &actions) == 0 else { return nil }
        var status: Int32 = 0
        for _ in 0..<(seconds * 10) {
            if waitpid(pid, &status, WNOHANG) == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil }
            usleep(100_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }

    /// One line from `fd`, without its newline; throws at end of file.
    package static func readLine(_ fd: Int32) throws -> String {
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

    package static func bash(_ script: String, stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        try run("/bin/bash", ["-c", script], stdin: stdin, environment: environment)
    }
}
#endif
