import Logging

extension VaultConfiguration {
    /// ``platformDefault``, telling `logger` why when the selection falls back (Linux: no Secret Service,
    /// so the encrypted file store): once per process, at `notice` level, by the call that selects.
    ///
    /// The library writes nothing to an app's stderr on its own: ``platformDefault`` says nothing, and
    /// an app that wants the notice passes its logger here (or reads ``PlatformSelection/notice`` from
    /// ``platform(store:authenticator:service:interaction:)``).
    public static func platformDefault(logger: Logger) -> VaultConfiguration {
        PlatformDefaultCache.shared.configuration(logger: logger)
    }
}

/// The library's logger when the app gives none: it drops everything.
enum SilentLogger {
    static let logger = Logger(label: "biometrics-vault", factory: { _ in SwiftLogNoOpLogHandler() })
}
