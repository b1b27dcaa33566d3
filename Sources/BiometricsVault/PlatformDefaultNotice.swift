#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the one-time notice about a platform-default fallback goes (default: one line on stderr).
public enum PlatformDefaultNotice {
    private static let handler = LockedValue<@Sendable (String) -> Void>({ message in
        let line = Array("biometrics-vault: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }  // best effort, like any notice
    })

    /// Replaces the notice handler (for example to log instead of writing to stderr).
    public static func setHandler(_ newHandler: @escaping @Sendable (String) -> Void) {
        handler.withLock { $0 = newHandler }
    }

    static func post(_ message: String) {
        let current = handler.withLock { $0 }
        current(message)
    }
}
