import Logging

/// The platform default, selected once per process.
///
/// The selection may wait for a person (the file store's passphrase on the terminal); it runs with no lock
/// held (``ComputedOnce``), and the fallback notice is logged after the result is published, so a log
/// handler may read ``VaultConfiguration/platformDefault`` itself.
final class PlatformDefaultCache: Sendable {
    static let shared = PlatformDefaultCache(select: {
        PlatformBackends.select(
            store: .auto, authenticator: .auto, service: VaultConfiguration.defaultService, interaction: .terminal,
            preparesProbes: true)
    })

    private let selection: ComputedOnce<PlatformSelection>
    /// Where a test hears the fallback notice instead of the caller's logger.
    private let postNotice: (@Sendable (String) -> Void)?

    init(select: @escaping @Sendable () -> PlatformSelection, postNotice: (@Sendable (String) -> Void)? = nil) {
        self.selection = ComputedOnce(select)
        self.postNotice = postNotice
    }

    /// The configuration, selected by the first caller; later callers, and those arriving while it is
    /// selected, get the same one. Says nothing about a fallback.
    var configuration: VaultConfiguration { configuration(logger: SilentLogger.logger) }

    /// ``configuration``; when this call selects and the selection fell back, `logger` hears why.
    func configuration(logger: Logger) -> VaultConfiguration {
        let (selection, selectedHere) = selection.value()
        if selectedHere, let notice = selection.notice {
            if let postNotice { postNotice(notice) } else { logger.notice("\(notice)") }
        }
        return selection.configuration
    }

    /// The name of the store selected (`service`, `secret-service`, `file`), selecting it if need be.
    var storeName: String { selection.value().0.storeName }

    /// The configuration if it has been selected, without waiting (`nil` while the selection runs).
    var selectedConfiguration: VaultConfiguration? { selection.valueIfComputed?.configuration }
}
