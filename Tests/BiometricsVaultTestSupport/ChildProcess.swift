import BiometricsVaultCore
import Foundation
import Subprocess
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A child process of a test, started and awaited through swift-subprocess.
///
/// Awaiting its end suspends the test instead of blocking a thread: Swift Testing runs every test body
/// on the cooperative pool, which has one thread per CPU, so a test that blocked in `waitpid` held one of
/// two threads of the whole parallel run for as long as its child ran. swift-subprocess learns of the exit
/// on its own monitor thread (a pidfd in an epoll set) and resumes the waiting task.
package final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file opened for the child (stdin reads it; stdout and stderr append to it).
        case file(String)
        /// A descriptor of the caller's, given to the child and closed in this process once it started.
        case descriptor(Int32)
    }

    /// How the child ended.
    package struct Exit: Sendable, Equatable {
        /// The exit code, or the number of the signal that ended it.
        package var code: Int32
        package var signalled: Bool

        package init(code: Int32, signalled: Bool) {
            self.code = code
            self.signalled = signalled
        }

        /// As a shell reports it: the exit code, or 128 plus the signal's number.
        package var shellStatus: Int32 { signalled ? 128 + code : code }
    }

    package let processIdentifier: pid_t
    private let termination: Task<Exit, any Error>
    private let ended: LockedValue<Bool>

    private init(processIdentifier: pid_t, termination: Task<Exit, any Error>, ended: LockedValue<Bool>) {
        self.processIdentifier = processIdentifier
        self.termination = termination
        self.ended = ended
    }

    /// Starts `executable` with `arguments` and exactly `environment` as its environment (the test's
    /// own, with `environment` over it, unless `replacing`). Returns once the child runs.
    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], replacing: Bool = false,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) async throws -> ChildProcess {
        let path = executable.hasPrefix("/") ? executable : (Shell.which(executable) ?? executable)
        let input = try descriptor(for: stdin, flags: O_RDONLY)
        let output = try descriptor(for: stdout, flags: O_WRONLY | O_APPEND)
        let errors = try descriptor(for: stderr, flags: O_WRONLY | O_APPEND)
        let merged = replacing ? environment : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        var custom: [Environment.Key: String] = [:]
        for (name, value) in merged {
            guard let key = Environment.Key(rawValue: name) else { continue }
            custom[key] = value
        }
        let (started, startedContinuation) = AsyncStream.makeStream(of: pid_t.self)
        let ended = LockedValue(false)
        let termination = Task { () throws -> Exit in
            defer {
                startedContinuation.finish()
                ended.withLock { $0 = true }
            }
            // The descriptors are closed here, not by swift-subprocess: it leaves those of a child that
            // failed to start open, and then stops the process when they are released.
            var open = true
            func closeStreams() {
                guard open else { return }
                open = false
                for fd in [input, output, errors] { close(fd) }
            }
            defer { closeStreams() }
            let status = try await Subprocess.run(
                .path(FilePath(path)), arguments: Arguments(arguments), environment: .custom(custom),
                input: .fileDescriptor(FileDescriptor(rawValue: input), closeAfterSpawningProcess: false),
                output: .fileDescriptor(FileDescriptor(rawValue: output), closeAfterSpawningProcess: false),
                error: .fileDescriptor(FileDescriptor(rawValue: errors), closeAfterSpawningProcess: false)
            ) { execution in
                closeStreams()
                startedContinuation.yield(execution.processIdentifier.value)
                startedContinuation.finish()
            }.terminationStatus
            switch status {
            case .exited(let code): return Exit(code: code, signalled: false)
            case .signaled(let signal): return Exit(code: signal, signalled: true)
            }
        }
        var pids = started.makeAsyncIterator()
        guard let pid = await pids.next() else {
            // Not started: the task's error says why.
            _ = try await termination.value
            throw TestFailure("could not start \(path)")
        }
        return ChildProcess(processIdentifier: pid, termination: termination, ended: ended)
    }

    /// Opens what `stream` names for the child; the descriptor is the child's (closed here after the spawn).
    private static func descriptor(for stream: Stream, flags: Int32) throws -> Int32 {
        let fd: Int32
        switch stream {
        case .null: fd = open("/dev/null", flags | O_CLOEXEC)
        case .file(let path): fd = open(path, flags | O_CLOEXEC)
        case .descriptor(let given): return given
        }
        guard fd >= 0 else { throw TestFailure("could not open a stream for a child: errno \(errno)") }
        return fd
    }

    /// Whether the child still runs (false once swift-subprocess has reaped it).
    package var isRunning: Bool { !ended.withLock { $0 } }

    /// Waits, suspended, for the child's end.
    @discardableResult
    package func exit() async throws -> Exit { try await termination.value }

    /// Sends `signal` while the child runs.
    package func signal(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// SIGTERM while the child runs.
    package func terminate() { signal(SIGTERM) }

    /// Waits at most `seconds` for the end; `nil` (and the child killed, and reaped) when it still runs then.
    package func exit(within seconds: Double) async throws -> Exit? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard isRunning else { return try await exit() }
        signal(SIGKILL)
        try await exit()
        return nil
    }
}

/// How many short runs (``Shell/run(_:_:stdin:environment:replacing:workingDirectory:)``,
/// ``CLISandbox/run(executable:_:stdin:)``) the tests have going at once: the daemons they talk to
/// (one gnome-keyring, one KeePassXC, one polkitd for the whole run) answer within their deadlines only
/// so many clients at a time. A run waits, suspended, for a free slot. Long-lived children (daemons,
/// terminals, agents) take none.
package actor RunSlots {
    package static let shared = RunSlots(count: 4)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private init(count: Int) { free = count }

    /// Runs `body` in a slot.
    package static func withSlot<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        await shared.acquire()
        do {
            let value = try await body()
            await shared.release()
            return value
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
