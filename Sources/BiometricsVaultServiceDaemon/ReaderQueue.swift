#if os(Linux)
import BiometricsVaultCore

/// The fingerprint reader, held by one check at a time. fprintd lets one claim hold a device; a second
/// user's `Claim` while the first waits for a finger would fail at once ("the reader is in use"). So the
/// service's checks take turns here: a check waits at most ``maximumWait`` for its turn; when the reader
/// is let go it goes to the oldest waiting check of a user other than the one that held it, if any, so
/// that no user's stream of checks keeps another's waiting; a user has at most ``waitingPerUser`` checks
/// waiting (more are refused at once). fprintd's own verify timeout bounds how long one check holds it.
final class ReaderQueue: Sendable {
    static let waitingPerUser = 4
    /// How long a check waits for its turn (fprintd's verify timeout is 30 s a check).
    let maximumWait: Duration

    init(maximumWait: Duration = .seconds(90)) { self.maximumWait = maximumWait }

    private struct Waiting {
        let id: Int
        let uid: UInt32
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var holder: UInt32?
        var waiting: [Waiting] = []
        /// Checks given a number and not yet granted or given up, and their users.
        var pending: [Int: UInt32] = [:]
        /// Those of them given up before they were queued.
        var abandoned: Set<Int> = []
        var next = 0
    }

    private let state = LockedValue(State())

    /// Runs `body` while holding the reader for `uid`, after the checks before it.
    func hold<T: Sendable>(uid: UInt32, _ body: () async throws -> T) async throws -> T {
        try await acquire(uid: uid)
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private func acquire(uid: UInt32) async throws {
        enum Turn { case now, wait(Int), refused }
        let turn = state.withLock { state -> Turn in
            if state.holder == nil {
                state.holder = uid
                return .now
            }
            guard state.pending.values.filter({ $0 == uid }).count < Self.waitingPerUser else { return .refused }
            state.next += 1
            state.pending[state.next] = uid
            return .wait(state.next)
        }
        let id: Int
        switch turn {
        case .now: return
        case .refused:
            throw VaultError(.biometryNotAvailable, underlying: .message(
                "this user already has \(Self.waitingPerUser) checks waiting for the fingerprint reader"))
        case .wait(let waiting): id = waiting
        }
        let timeout = Task { [self] in
            try? await Task.sleep(for: maximumWait)
            if !Task.isCancelled { giveUp(id) }
        }
        defer { timeout.cancel() }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let abandoned = state.withLock { state -> Bool in
                    if state.abandoned.remove(id) != nil { return true }
                    state.waiting.append(Waiting(id: id, uid: uid, continuation: continuation))
                    return false
                }
                if abandoned { continuation.resume(returning: false) }
            }
        } onCancel: {
            giveUp(id)
        }
        guard granted else {
            try Task.checkCancellation()
            throw VaultError(.biometryNotAvailable, underlying: .message(
                "the fingerprint reader stayed busy with other checks for \(maximumWait.components.seconds) s"))
        }
    }

    /// How many checks wait.
    var waitingCount: Int { state.withLock { $0.pending.count } }

    /// Takes check `id` out of the queue (it waited too long, or its caller left); its wait ends.
    private func giveUp(_ id: Int) {
        let removed = state.withLock { state -> Waiting? in
            guard state.pending.removeValue(forKey: id) != nil else { return nil }  // granted already
            if let index = state.waiting.firstIndex(where: { $0.id == id }) { return state.waiting.remove(at: index) }
            state.abandoned.insert(id)
            return nil
        }
        removed?.continuation.resume(returning: false)
    }

    /// Lets the reader go: to the oldest waiting check of another user, else to the oldest waiting one.
    private func release() {
        let next = state.withLock { state -> Waiting? in
            let previous = state.holder
            let index = state.waiting.firstIndex { $0.uid != previous } ?? state.waiting.indices.first
            guard let index else {
                state.holder = nil
                return nil
            }
            let next = state.waiting.remove(at: index)
            state.pending[next.id] = nil
            state.holder = next.uid
            return next
        }
        next?.continuation.resume(returning: true)
    }
}
#endif
