import BiometricsVault
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

/// The CLI's fingerprint prompt on stderr (``FingerprintPromptAuthenticator`` runs it while the reader
/// waits): one line, redrawn in place each second on a terminal, printed once otherwise.
struct FingerprintPromptLine: Sendable {
    /// Shows the line until cancelled, then clears it.
    static func show(reason: String, timeout: Duration) async {
        let line = FingerprintPromptLine(reason: reason, timeout: timeout)
        if await line.run() { line.finish() }
    }

    /// ``show(reason:timeout:)`` for the vault service: the line also names the program asking, as the
    /// service sees this process (its name and parents), so a user asked for a finger by a script or an
    /// agent sees which.
    static func showNamingCaller(reason: String, timeout: Duration) async {
        #if os(Linux)
        if let caller = VaultServiceControls.caller() {
            // Process names are whatever the processes chose (`prctl(PR_SET_NAME)`): shown escaped.
            return await show(reason: "\(reason) for \(Console.terminalSafe(caller, escapingLineBreaks: true))", timeout: timeout)
        }
        #endif
        await show(reason: reason, timeout: timeout)
    }

    let reason: String
    let timeout: Duration
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(reason: String, timeout: Duration) {
        self.reason = reason
        self.timeout = timeout
    }

    /// Shows the line until cancelled; whether it showed anything.
    func run() async -> Bool {
        let start = ContinuousClock.now
        if Task.isCancelled { return false }
        guard isTerminal else {
            Console.err("\(reason): Touch the fingerprint reader… (\(seconds(timeout)) s left, Ctrl-C to cancel)")
            return true
        }
        while !Task.isCancelled {
            let left = max(.zero, timeout - (ContinuousClock.now - start))
            write("\r\u{1B}[K\(reason): Touch the fingerprint reader… (\(seconds(left)) s left, Ctrl-C to cancel)")
            try? await Task.sleep(for: .seconds(1))
        }
        return true
    }

    /// Clears the line on a terminal.
    func finish() {
        if isTerminal { write("\r\u{1B}[K") }
    }

    private func seconds(_ duration: Duration) -> Int64 {
        duration.components.seconds + (duration.components.attoseconds > 0 ? 1 : 0)
    }

    private func write(_ text: String) {
        Console.errRaw(text)
    }
}
