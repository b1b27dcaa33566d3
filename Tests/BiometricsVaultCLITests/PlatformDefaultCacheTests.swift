@testable import BiometricsVault
import Dispatch
import BiometricsVaultTestSupport
import Logging
import Testing

/// The once-per-process platform default: its selection, which may wait for a person at a terminal
/// (the file store's passphrase), runs while no lock is held.
@Suite(.onTestThreads) struct PlatformDefaultCacheTests {
    static func selection(notice: String? = nil) -> PlatformSelection {
        let store = UnopenedStore(name: "file", error: VaultError(.storeLocked, underlying: .message("not opened in this test")))
        return PlatformSelection(
            configuration: VaultConfiguration(store: store, authenticator: UnavailableAuthenticator(reason: .biometryNotAvailable)),
            storeName: "file", authenticatorName: "none", ownerAuthenticationName: "none", fingerprintTimeout: nil,
            notice: notice)
    }

    /// While the selection waits at the passphrase prompt, the cache's lock is free: asking whether a
    /// selection exists answers at once instead of waiting for the person.
    @Test func aSelectionWaitingForAPersonHoldsNoLock() throws {
        let terminal = UnansweredTerminalFake()
        let cache = PlatformDefaultCache(select: {
            _ = terminal.interaction.readStoreSecret(.passphrase, "Passphrase for the file store: ")
            return Self.selection()
        })
        defer { terminal.answer() }
        let selected = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = cache.configuration
            selected.signal()
        }
        try #require(terminal.waitUntilPrompting(), "the selection never reached its prompt")

        let peeked = DispatchSemaphore(value: 0)
        let peek = LockedValue<VaultConfiguration??>(nil)
        DispatchQueue.global().async {
            let configuration = cache.selectedConfiguration
            peek.withLock { $0 = .some(configuration) }
            peeked.signal()
        }
        let answeredDuringThePrompt = peeked.wait(timeout: .now() + .seconds(2)) == .success
        terminal.answer()
        #expect(answeredDuringThePrompt, "the cache's lock is held while the prompt waits for a person")
        #expect(selected.wait(timeout: .now() + .seconds(10)) == .success)
        if !answeredDuringThePrompt { _ = peeked.wait(timeout: .now() + .seconds(10)) }
        #expect(peek.withLock { $0.map { $0 == nil } } == true, "nothing is selected while the prompt waits")
        #expect(cache.selectedConfiguration != nil)
    }

    /// The fallback notice goes to a handler after the selection is published, outside any lock: a
    /// handler that reads the platform default (to log the store it names) gets it instead of deadlocking.
    @Test func theNoticeHandlerMayReadThePlatformDefault() {
        let cacheForHandler = LockedValue<PlatformDefaultCache?>(nil)
        let notices = LockedValue<[String]>([])
        let cache = PlatformDefaultCache(
            select: { Self.selection(notice: "no Secret Service; using the encrypted file store") },
            postNotice: { notice in
                let storeName = cacheForHandler.withLock { $0 }?.configuration.store.name ?? "?"
                notices.withLock { $0.append("\(notice) (\(storeName))") }
            })
        cacheForHandler.withLock { $0 = cache }
        // The handler holds the cache and the cache the handler: released at the end, or LeakSanitizer
        // (CI's ASan run) reports the pair.
        defer { cacheForHandler.withLock { $0 = nil } }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = cache.configuration
            _ = cache.configuration
            done.signal()
        }
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success, "the notice handler deadlocked on the cache")
        #expect(notices.withLock { $0 } == ["no Secret Service; using the encrypted file store (file)"])
    }

    /// Callers that arrive while the first one's selection waits at its prompt wait for that selection
    /// (one prompt, one notice), and all get the same configuration.
    @Test func concurrentFirstCallersShareOneSelection() throws {
        let terminal = UnansweredTerminalFake()
        let selections = LockedValue(0)
        let notices = LockedValue(0)
        let cache = PlatformDefaultCache(
            select: {
                selections.withLock { $0 += 1 }
                _ = terminal.interaction.readStoreSecret(.passphrase, "Passphrase for the file store: ")
                return Self.selection(notice: "fallback")
            },
            postNotice: { _ in notices.withLock { $0 += 1 } })
        defer { terminal.answer() }
        let callers = 4
        let finished = DispatchSemaphore(value: 0)
        let storeNames = LockedValue<[String]>([])
        for _ in 0..<callers {
            DispatchQueue.global().async {
                let name = cache.configuration.store.name
                storeNames.withLock { $0.append(name) }
                finished.signal()
            }
        }
        try #require(terminal.waitUntilPrompting(), "the selection never reached its prompt")
        terminal.answer()
        for _ in 0..<callers {
            #expect(finished.wait(timeout: .now() + .seconds(10)) == .success)
        }
        #expect(selections.withLock { $0 } == 1)
        #expect(notices.withLock { $0 } == 1)
        #expect(storeNames.withLock { $0 } == Array(repeating: "file", count: callers))
    }
}

/// A fake for a fault: a terminal whose person does not answer until the test says so (a real terminal
/// cannot be made to wait for a person on demand). Every answer is "cancelled".
final class UnansweredTerminalFake: Sendable {
    private let prompting = DispatchSemaphore(value: 0)
    private let answered = DispatchSemaphore(value: 0)

    var interaction: PlatformInteraction {
        PlatformInteraction(
            hasTerminal: true,
            readSecret: { _ in
                self.prompting.signal()
                self.answered.wait()
                self.answered.signal()  // later prompts are answered at once
                return nil
            },
            showMessage: { _ in })
    }

    /// Whether a prompt showed within 10 s (a liveness bound, not a timing assertion).
    func waitUntilPrompting() -> Bool {
        prompting.wait(timeout: .now() + .seconds(10)) == .success
    }

    /// Answers the waiting prompt, and every later one.
    func answer() {
        answered.signal()
    }
}

/// The fallback notice reaches the logger the app gives, and nothing else: the library never writes on
/// stderr by itself.
@Suite struct PlatformDefaultLoggerTests {
    /// Keeps what it is given (the swift-log `LogHandler` contract: a value type).
    struct RecordingHandler: LogHandler {
        let lines: LockedValue<[String]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }

    @Test func theNoticeGoesToTheCallersLoggerOnce() {
        let lines = LockedValue<[String]>([])
        let logger = Logger(label: "test") { _ in RecordingHandler(lines: lines) }
        let cache = PlatformDefaultCache(select: { PlatformDefaultCacheTests.selection(notice: "no Secret Service; using the encrypted file store") })
        _ = cache.configuration(logger: logger)
        _ = cache.configuration(logger: logger)
        #expect(lines.withLock { $0 } == ["notice: no Secret Service; using the encrypted file store"])
    }

    @Test func withoutALoggerNothingIsSaid() {
        let lines = LockedValue<[String]>([])
        let cache = PlatformDefaultCache(select: { PlatformDefaultCacheTests.selection(notice: "fallback") })
        _ = cache.configuration
        // A later caller with a logger is not the one that selected: the notice was said (to nobody) once.
        _ = cache.configuration(logger: Logger(label: "test") { _ in RecordingHandler(lines: lines) })
        #expect(lines.withLock { $0 }.isEmpty)
    }
}
