import Dispatch

/// A value computed exactly once, with no lock held while it is computed.
///
/// The computation may wait for a person (the platform default's selection may ask for the file store's
/// passphrase on the terminal) or for a daemon: under a mutex, every other user of that mutex would wait
/// as long, and code the computation calls back into (a notice handler) would deadlock on it. Here the
/// lock only marks who computes; callers arriving meanwhile wait on a `DispatchGroup`, holding nothing.
final class ComputedOnce<Value: Sendable>: Sendable {
    private enum State {
        case notStarted
        case running
        case computed(Value)
    }

    private let compute: @Sendable () -> Value
    private let state = LockedValue(State.notStarted)
    private let finished = DispatchGroup()

    init(_ compute: @escaping @Sendable () -> Value) {
        self.compute = compute
    }

    /// The value, computed here by the first caller (`computedHere`), or waited for.
    func value() -> (value: Value, computedHere: Bool) {
        if claim() { return (run(), true) }
        finished.wait()
        guard let value = valueIfComputed else { preconditionFailure("the computation finished without a value") }
        return (value, false)
    }

    /// The value if it has been computed, without waiting.
    var valueIfComputed: Value? {
        state.withLock { state in
            switch state {
            case .computed(let value): value
            case .notStarted, .running: nil
            }
        }
    }

    /// Starts computing on a thread `startThread` starts, unless computing has started already; returns at
    /// once. `startThread` runs its argument on a new thread and returns false if it could start none (the
    /// value is then computed here, before this returns).
    func startInBackground(startingThread startThread: (_ body: @escaping @Sendable () -> Void) -> Bool) {
        if claim(), !startThread({ _ = self.run() }) { _ = run() }
    }

    /// True for the one caller that gets to compute.
    private func claim() -> Bool {
        state.withLock { state in
            guard case .notStarted = state else { return false }
            state = .running
            finished.enter()
            return true
        }
    }

    private func run() -> Value {
        let value = compute()
        state.withLock { $0 = .computed(value) }
        finished.leave()
        return value
    }
}
