import ArgumentParser
import BiometricsVault
import BiometricsVaultCredentialHelpers
import BiometricsVaultJSON
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the CLI writes: results on stdout, notices and errors on stderr.
///
/// Every byte goes through `write(2)` (``FileDescriptorOutput``), never FileHandle (whose `write` traps
/// on EPIPE/ENOSPC/EBADF). A failed write to stdout is remembered: the command finishes what it was doing
/// (a `store` has stored), then the CLI exits with ``ExitStatus/outputFailed`` and says so on stderr. A
/// failed write to stderr is ignored: there is nowhere left to report it.
enum Console {
    /// The first stdout write that failed, as an errno.
    private static let stdoutFailure = LockedValue<Int32?>(nil)

    static func out(_ text: String) {
        outRaw(text + "\n")
    }

    /// Writes `text` to stdout as it is (no newline added), remembering a failure as ``out(_:)`` does. The
    /// bytes are zeroed after the write: the credential helpers' answers carry the secret.
    static func outRaw(_ text: String) {
        guard stdoutFailure.withLock({ $0 }) == nil else { return }
        var bytes = Array(text.utf8)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        if let error = FileDescriptorOutput.writeAll(STDOUT_FILENO, bytes) {
            stdoutFailure.withLock { $0 = $0 ?? error }
        }
    }

    static func err(_ text: String) {
        _ = FileDescriptorOutput.writeAll(STDERR_FILENO, Array((text + "\n").utf8))
    }

    /// Writes to stderr without a newline (the fingerprint prompt redraws its line).
    static func errRaw(_ text: String) {
        _ = FileDescriptorOutput.writeAll(STDERR_FILENO, Array(text.utf8))
    }

    /// One notice on stderr. Notices repeat what other programs may have written (config lines, variables,
    /// paths, a library's message): control characters that could drive the terminal are shown escaped.
    static func notice(_ text: String) {
        err("biometrics-vault: \(terminalSafe(text))")
    }

    /// Whether stdout is a terminal (where `show` escapes control characters).
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Prints a result: `json` as one line of JSON with `--json`, else `text` (when there is any).
    static func emit(_ options: GlobalOptions, json: JSONValue, text: String?) {
        if options.json {
            out(json.jsonText)
        } else if let text {
            out(text)
        }
    }

    /// Runs one verb: prints a failure and exits with its stable status.
    static func run(_ options: GlobalOptions, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            throw reportFailure(StdinLine.refusal() ?? error, options)
        }
    }

    /// Prints `error` and returns what ends the process with its stable status.
    private static func reportFailure(_ error: any Error, _ options: GlobalOptions) -> ExitCode {
        let (status, code, message) = describe(error, verbose: options.verbose)
        report(status: status, code: code, message: message, json: options.json)
        return ExitCode(status.rawValue)
    }

    /// Prints one error on stderr, as text or (`--json`) as `{"error":{...}}`.
    static func report(status: ExitStatus, code: String, message: String, json: Bool) {
        if json {
            let report: JSONValue = .object([
                "error": .object([
                    "code": .string(code), "exitCode": .integer(Int64(status.rawValue)), "message": .string(message),
                ])
            ])
            err(report.jsonText)
        } else {
            err("biometrics-vault: error: \(message)")
        }
    }

    /// After a command that succeeded: `nil` when stdout took everything, else the status to exit with
    /// (the failure is reported on stderr, if stderr works).
    static func finishOutput(json: Bool) -> ExitStatus? {
        guard let error = stdoutFailure.withLock({ $0 }) else { return nil }
        report(
            status: .outputFailed, code: "outputFailed",
            message: "cannot write the result to stdout: \(FileDescriptorOutput.words(error)) (errno \(error)); "
                + "the command itself completed (e.g. `store`: the item is stored)",
            json: json)
        return .outputFailed
    }

    /// Status, code name and message of an error. Library errors are described by code and platform
    /// cause only (never secret bytes, by VaultError's contract).
    ///
    /// The first sentence is in words: a GLib or D-Bus cause keeps only its message there, and its domain,
    /// quark number or error name is added with `--verbose` (scripts read the first sentence).
    static func describe(_ error: any Error, verbose: Bool = false) -> (ExitStatus, String, String) {
        switch error {
        case let failure as CLIFailure:
            return (failure.status, failure.code, failure.message)
        case let refusal as CredentialHelperInputError:
            let failure = CLIFailure.badInput(refusal.message)
            return (failure.status, failure.code, failure.message)
        case let error as VaultError:
            let status = ExitStatus(error)
            let detail: String
            switch error.underlying {
            case .errno(let number)?:
                // In words first; the bare number alone told nobody what was wrong.
                detail = "\(status.summary): \(FileDescriptorOutput.words(number)) (errno \(number))"
            case .gError(_, _, let message)? where !verbose:
                detail = "\(status.summary): \(message) (--verbose for details)"
            case .dbus(_, let message)? where !verbose:
                detail = "\(status.summary): \(message) (--verbose for details)"
            case let underlying?:
                detail = String(describing: underlying)
            case nil:
                detail = status.summary
            }
            return (status, error.code.name, "\(detail) [\(error.code.name)]")
        case is CancellationError:
            return (.cancelled, "systemCancel", "cancelled")
        default:
            return (.failure, "failure", "unexpected \(type(of: error))")
        }
    }

    /// `text` made safe to show on a terminal: control characters that could move the cursor, rewrite
    /// the screen or reorder what is shown (C0 except newline and tab, DEL, C1, U+2028/2029, the bidi
    /// controls) become `\uXXXX`. Used only when stdout is a terminal; a pipe gets the bytes unchanged.
    /// With `escapingLineBreaks`, newline and tab are escaped too (one key per line in `list`).
    static func terminalSafe(_ text: String, escapingLineBreaks: Bool = false) -> String {
        var safe = ""
        for scalar in text.unicodeScalars {
            if isDeceptive(scalar) || (escapingLineBreaks && (scalar == "\n" || scalar == "\t")) {
                safe += "\\u" + Text.hex(scalar.value, digits: 4)
            } else {
                safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }

    private static func isDeceptive(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F, 0x80...0x9F: true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}

/// `write(2)` until every byte is written or an error that retrying cannot fix.
enum FileDescriptorOutput {
    /// `nil` when every byte was written, else the errno (EPIPE, ENOSPC, EBADF, EIO, ...).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
                continue
            }
            let error = written < 0 ? errno : EIO
            switch error {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                // A non-blocking descriptor someone handed us: wait until it takes more.
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&ready, 1, -1) < 0, errno != EINTR { return errno }
            default:
                return error
            }
        }
        return nil
    }

    /// `strerror` in words, e.g. "No space left on device".
    static func words(_ error: Int32) -> String {
        String(cString: strerror(error))
    }
}
