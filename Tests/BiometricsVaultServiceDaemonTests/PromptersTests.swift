#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultService
@testable import BiometricsVaultServiceDaemon
import Testing

/// Each user's prompter and what is shown on it, without a bus: the events each prompter is sent.
@Suite struct PromptersTests {
    /// What the prompters were sent, by connection.
    final class Sent: Sendable {
        let events = LockedValue<[(String, VaultServicePromptEvent)]>([])
        func to(_ connection: String) -> [VaultServicePromptEvent] { events.withLock { $0.filter { $0.0 == connection }.map(\.1) } }
    }

    func prompters() -> (Prompters, Sent) {
        let prompters = Prompters()
        let sent = Sent()
        prompters.send { connection, event in sent.events.withLock { $0.append((connection, event)) } }
        return (prompters, sent)
    }

    /// A check is shown on its user's prompter only, and withdrawn from that one even after another
    /// registered; a user without a prompter is shown nothing.
    @Test func aCheckIsShownOnItsUsersPrompterUntilWithdrawn() {
        let (prompters, sent) = prompters()
        #expect(prompters.register(uid: 1001, connection: ":1.7") == nil)
        #expect(prompters.show(uid: 1002, summary: "s", body: "b", cancel: {}) == nil)
        let prompt = prompters.show(uid: 1001, summary: "Touch the fingerprint reader", body: "b", cancel: {})
        #expect(prompt != nil)
        #expect(prompters.register(uid: 1001, connection: ":1.9") == ":1.7")
        #expect(prompters.withdraw(prompt ?? 0, outcome: "answered") == false)
        #expect(sent.to(":1.7") == [
            .shown(prompt: prompt ?? 0, summary: "Touch the fingerprint reader", body: "b"), .withdrawn(prompt: prompt ?? 0, outcome: "answered"),
        ])
        #expect(sent.to(":1.9").isEmpty)
        prompters.left(":1.9")
        #expect(prompters.prompter(uid: 1001) == nil)
    }

    /// Cancel from the prompter ends the check, for its own user's prompts only, and the withdrawal then
    /// says the person cancelled it.
    @Test func cancelEndsOnlyThatUsersCheck() {
        let (prompters, _) = prompters()
        _ = prompters.register(uid: 1001, connection: ":1.7")
        let cancelled = LockedValue(0)
        let prompt = prompters.show(uid: 1001, summary: "s", body: "b") { cancelled.withLock { $0 += 1 } } ?? 0
        #expect(!prompters.cancel(prompt, uid: 1002))
        #expect(!prompters.cancel(prompt + 1, uid: 1001))
        #expect(cancelled.withLock { $0 } == 0)
        #expect(prompters.cancel(prompt, uid: 1001))
        #expect(cancelled.withLock { $0 } == 1)
        #expect(prompters.withdraw(prompt, outcome: "ended"))
        #expect(!prompters.cancel(prompt, uid: 1001))
    }

    /// Every name a program chose is escaped for a server that reads markup: none becomes a link or an
    /// image; the service's text itself is plain.
    @Test(arguments: [
        ("<img src=\"file:///x\">", "&lt;img src=&quot;file:///x&quot;&gt;"),
        ("a & b", "a &amp; b"),
        ("<a href='x'>", "&lt;a href=&#39;x&#39;&gt;"),
    ])
    func aProgramsNamesAreNotMarkup(chosen: String, escaped: String) {
        let body = VaultServiceRequests.promptBody(asker: chosen, pid: 42, item: chosen, reason: chosen)
        #expect(body == "Asked by pid 42: \(chosen)\nFor: \(chosen)\nIts reason: \(chosen)")
        #expect(VaultServicePrompter.escapingMarkup(body) == "Asked by pid 42: \(escaped)\nFor: \(escaped)\nIts reason: \(escaped)")
    }

    /// The signals' values decode back to themselves; another member or other types are no event.
    @Test func anEventsSignalDecodesToItself() {
        for event: VaultServicePromptEvent in [
            .shown(prompt: 3, summary: "s", body: "b"), .withdrawn(prompt: 3, outcome: "ended"), .replaced(by: "x"),
            .checkStarted(.finger, reason: "r"), .checkStarted(.password, reason: ""),
        ] {
            #expect(VaultServicePromptEvent(member: event.signal.rawValue, parameters: DBusValue(event.arguments)) == event)
        }
        #expect(VaultServicePromptEvent(member: "PromptShown", parameters: DBusValue(VaultServicePromptEvent.replaced(by: "x").arguments)) == nil)
        #expect(VaultServicePromptEvent(member: "CheckStarted", parameters: DBusValue(.tuple([.string("retina"), .string("r")]))) == nil)
        #expect(VaultServicePromptEvent(member: "Unlock", parameters: DBusValue(VaultServicePromptEvent.replaced(by: "x").arguments)) == nil)
    }
}
#endif
