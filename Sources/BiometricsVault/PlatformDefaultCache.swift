/// The platform default, selected once per process.
///
/// The selection may wait for a person (the file store's passphrase on the terminal); it runs with no lock
/// held (``ComputedOnce``), and the fallback notice is posted after the result is published, so a notice
/// handler may read ``VaultConfiguration/platformDefault`` itself.
final class PlatformDefaultCache: Sendable {
    static let shared = PlatformDefaultCache(select: {
        PlatformBackends.select(
            store: .auto, authenticator: .auto, service: VaultConfiguration.defaultService, interaction: .terminal,
            preparesProbes: true)
    })

    private let selection: ComputedOnce<PlatformSelection>
    private let postNotice: @Sendable (String) -> Void

    init(
        select: @escaping @Sendable () -> PlatformSelection,
        postNotice: @escaping @Sendable (String) -> Void = PlatformDefaultNotice.post
    ) {
        self.selection = ComputedOnce(select)
        self.postNotice = postNotice
    }

    /// The configuration, selected by the first caller; later callers, and those arriving while it is
    /// selected, get the same one.
    var configuration: VaultConfiguration {
        let (selection, selectedHere) = selection.value()
        if selectedHere, let notice = selection.notice { postNotice(notice) }
        return selection.configuration
    }

    /// The configuration if it has been selected, without waiting (`nil` while the selection runs).
    var selectedConfiguration: VaultConfiguration? { selection.valueIfComputed?.configuration }
}
