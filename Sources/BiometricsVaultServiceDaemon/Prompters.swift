#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultService

/// The prompter each user registered (`biometrics-vault prompter`, one per graphical session) and the
/// checks shown on it. The service, which runs the check, says what is shown: the prompter only draws
/// it. One prompter a user: the latest registration takes the prompts, and the one it replaces is told
/// (``VaultServicePromptEvent/replaced(by:)``). A registration ends when its connection leaves the bus.
final class Prompters: Sendable {
    /// Sends one event to one connection: the server's, while it serves.
    typealias Sender = @Sendable (_ destination: String, _ event: VaultServicePromptEvent) -> Void

    private struct Shown: Sendable {
        let uid: UInt32
        /// The prompter it was shown on: the one told when it ends, even after a new registration.
        let connection: String
        let cancel: @Sendable () -> Void
        var cancelledOnPrompt = false
    }

    private let registered = LockedValue<[UInt32: String]>([:])
    private let shown = LockedValue<(next: UInt64, prompts: [UInt64: Shown])>((1, [:]))
    private let sender = LockedValue<Sender?>(nil)

    /// Where events go from now on (`nil`: nowhere, the server has stopped).
    func send(through sender: Sender?) { self.sender.withLock { $0 = sender } }

    /// Makes `connection` the prompter of `uid`; returns the one it replaces, if another.
    func register(uid: UInt32, connection: String) -> String? {
        let previous = registered.withLock { all in
            defer { all[uid] = connection }
            return all[uid]
        }
        return previous == connection ? nil : previous
    }

    /// `connection` left the bus: it prompts no more.
    func left(_ connection: String) {
        registered.withLock { all in
            for (uid, registration) in all where registration == connection { all[uid] = nil }
        }
    }

    /// The prompter `uid` registered, if any.
    func prompter(uid: UInt32) -> String? { registered.withLock { $0[uid] } }

    /// Tells `connection` of `event`.
    func tell(_ connection: String, _ event: VaultServicePromptEvent) {
        sender.withLock { $0 }?(connection, event)
    }

    /// Shows a check of `uid` on its prompter, if it has one: returns the prompt's number, which
    /// ``withdraw(_:outcome:)`` must end. `cancel` ends the check (``cancel(_:uid:)``).
    func show(uid: UInt32, summary: String, body: String, cancel: @escaping @Sendable () -> Void) -> UInt64? {
        guard let connection = prompter(uid: uid) else { return nil }
        let prompt = shown.withLock { state in
            let prompt = state.next
            state.next += 1
            state.prompts[prompt] = Shown(uid: uid, connection: connection, cancel: cancel)
            return prompt
        }
        tell(connection, .shown(prompt: prompt, summary: summary, body: body))
        return prompt
    }

    /// Ends a prompt: its prompter takes it down. Returns whether the person cancelled it there.
    @discardableResult
    func withdraw(_ prompt: UInt64, outcome: String) -> Bool {
        guard let ended = shown.withLock({ $0.prompts.removeValue(forKey: prompt) }) else { return false }
        tell(ended.connection, .withdrawn(prompt: prompt, outcome: outcome))
        return ended.cancelledOnPrompt
    }

    /// The person cancelled `prompt` on a prompter of `uid`: its check ends. `false` when no such prompt
    /// of that user is shown.
    func cancel(_ prompt: UInt64, uid: UInt32) -> Bool {
        let cancel: (@Sendable () -> Void)? = shown.withLock { state in
            guard var entry = state.prompts[prompt], entry.uid == uid else { return nil }
            entry.cancelledOnPrompt = true
            state.prompts[prompt] = entry
            return entry.cancel
        }
        cancel?()
        return cancel != nil
    }
}
#endif
