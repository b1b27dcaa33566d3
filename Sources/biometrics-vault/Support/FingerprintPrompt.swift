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
        await line.run()
        line.finish()
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
    private let created = ContinuousClock.now

    init(reason: String, timeout: Duration) {
        self.reason = reason
        self.timeout = timeout
    }

    /// How long a prompt waits before it shows: an authentication answered sooner (the vault service
    /// inside an unlock window) asked for no finger, and shows nothing.
    static let grace: Duration = .milliseconds(250)

    func run() async {
        let start = ContinuousClock.now
        try? await Task.sleep(for: Self.grace)
        if Task.isCancelled { return }
        guard isTerminal else {
            Console.err("\(reason): Touch the fingerprint reader… (\(seconds(timeout)) s left, Ctrl-C to cancel)")
            return
        }
        while !Task.isCancelled {
            let left = max(.zero, timeout - (ContinuousClock.now - start))
            write("\r\u{1B}[K\(reason): Touch the fingerprint reader… (\(seconds(left)) s left, Ctrl-C to cancel)")
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Clears the line on a terminal.
    func finish() {
        if isTerminal && ContinuousClock.now - created >= Self.grace { write("\r\u{1B}[K") }
    }

    private func seconds(_ duration: Duration) -> Int64 {
        duration.components.seconds + (duration.components.attoseconds > 0 ? 1 : 0)
    }

    private func write(_ text: String) {
        Console.errRaw(text)
    }
}
