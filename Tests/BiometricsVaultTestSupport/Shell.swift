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

    /// posix_spawn + waitpid (not Foundation's `Process`, whose exit monitoring hung under parallel
    /// tests): pipes are close-on-exec so no other child inherits them, and the child starts with an
    /// empty signal mask (Dispatch worker threads block signals, and daemons we start must stay killable).
    @discardableResult
    package static func run(_ program: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
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
    /// this process's. Returns posix_spawn's result.
    private static func start(
        _ pid: inout pid_t, _ executable: String, _ arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t
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
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
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

    package static func bash(_ script: String, stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        try run("/bin/bash", ["-c", script], stdin: stdin, environment: environment)
    }
}
#endif
