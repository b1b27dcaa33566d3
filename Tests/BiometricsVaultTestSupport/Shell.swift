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

    /// Runs `program` with `stdin` written to it and its output collected; the test's environment with
    /// `environment` over it (only `environment` when `replacing`), in `workingDirectory` (else the
    /// test's). Waiting suspends the test (``ChildProcess``).
    @discardableResult
    package static func run(
        _ program: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        replacing: Bool = false, workingDirectory: String? = nil
    ) async throws -> Output {
        let executable = program.hasPrefix("/") ? program : (which(program) ?? program)
        var updates: [Environment.Key: String?] = [:]
        var custom: [Environment.Key: String] = [:]
        for (name, value) in environment {
            guard let key = Environment.Key(rawValue: name) else { continue }
            updates[key] = value
            custom[key] = value
        }
        // stdin from a file, not a pipe swift-subprocess writes: a child that exits without reading all
        // of it would fail that write, and swift-subprocess then stops the process over the pipe's
        // unclosed end.
        let inputFile = try TestScratch.newDirectory("stdin").appendingPathComponent("stdin").path
        defer { try? FileManager.default.removeItem(atPath: (inputFile as NSString).deletingLastPathComponent) }
        try Data((stdin ?? "").utf8).write(to: URL(fileURLWithPath: inputFile))
        let input = open(inputFile, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw TestFailure("could not open stdin for \(program): errno \(errno)") }
        defer { close(input) }
        let limit = 64 << 20
        let result = try await RunSlots.withSlot {
            try await Subprocess.run(
            .path(FilePath(executable)), arguments: Arguments(arguments),
            environment: replacing ? .custom(custom) : .inherit.updating(updates),
            workingDirectory: workingDirectory.map { FilePath($0) },
            input: .fileDescriptor(FileDescriptor(rawValue: input), closeAfterSpawningProcess: false),
                output: .bytes(limit: limit), error: .bytes(limit: limit))
        }
        let status: Int32
        switch result.terminationStatus {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        return Output(
            status: status, stdout: String(decoding: result.standardOutput, as: UTF8.self),
            stderr: String(decoding: result.standardError, as: UTF8.self))
    }

    package struct Child: Sendable {
        package var process: ChildProcess
        package var pid: pid_t { process.processIdentifier }
        package var stdin: Int32
        package var stdout: Int32
        package var stderr: Int32
    }

    /// Starts `program` with three pipes (or two: stderr into stdout's when `mergingErrors`); the caller
    /// owns the returned descriptors. The environment is the test's with `environment` over it, or only
    /// `environment` when `replacing`.
    package static func spawn(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], replacing: Bool = false,
        mergingErrors: Bool = false
    ) async throws -> Child {
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        guard closeOnExecPipe(&input), closeOnExecPipe(&output), closeOnExecPipe(&errors) else {
            throw TestFailure("pipe failed: errno \(errno)")
        }
        do {
            if mergingErrors {
                close(errors[1])
                errors[1] = dup(output[1])
                _ = fcntl(errors[1], F_SETFD, FD_CLOEXEC)
            }
            let process = try await ChildProcess.start(
                program, arguments, environment: environment, replacing: replacing,
                stdin: .descriptor(input[0]), stdout: .descriptor(output[1]), stderr: .descriptor(errors[1]))
            return Child(process: process, stdin: input[1], stdout: output[0], stderr: errors[0])
        } catch {
            for fd in [input[1], output[0], errors[0]] { close(fd) }
            throw error
        }
    }

    /// A pipe whose ends no child inherits: swift-subprocess starts every child with the descriptors
    /// above stderr closed (posix_spawn_file_actions_addclosefrom_np), and close-on-exec covers the rest.
    private static func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Runs `program` with stdio on /dev/null for at most `seconds`, and returns its exit status; `nil`
    /// when it did not start, died of a signal, or was killed at the bound. For scripts that leave
    /// daemons running: those would hold a pipe open, and reading it to its end would never finish.
    package static func status(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], within seconds: Int = 120
    ) async -> Int32? {
        guard let child = try? await ChildProcess.start(program, arguments, environment: environment),
            let exit = try? await child.exit(within: Double(seconds)), !exit.signalled
        else { return nil }
        return exit.code
    }

    /// One line from `fd`, without its newline; throws at end of file. The descriptor is made
    /// non-blocking, and the wait for more output is a suspension, not a blocked thread.
    package static func readLine(_ fd: Int32) async throws -> String {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var line = [UInt8]()
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN {
                try await Task.sleep(for: .milliseconds(2))
                continue
            }
            guard count == 1 else { throw TestFailure("end of output") }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// What `fd` has to read now or once it has some, up to 64 KiB; `nil` at end of file. Non-blocking,
    /// as ``readLine(_:)``.
    package static func readChunk(_ fd: Int32) async throws -> [UInt8]? {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count == 0 { return nil }
            if errno == EINTR { continue }
            guard errno == EAGAIN else { return nil }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    package static func bash(_ script: String, stdin: String? = nil, environment: [String: String] = [:]) async throws -> Output {
        try await run("/bin/bash", ["-c", script], stdin: stdin, environment: environment)
    }
}
