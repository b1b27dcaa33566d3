#if canImport(Security) || APPLE_SDK_STUBS
// Fakes behind the Apple backend's two seams (`KeychainClient`, `LocalAuthenticationContext`). On Linux the
// real Keychain and LocalAuthentication do not exist at all, so every fault below is one the real component
// cannot produce here; the fakes model the Apple behaviour the store and authenticator rely on, and record
// every call so the tests can assert the exact queries.
import BiometricsVaultCore
import Foundation

#if APPLE_SDK_STUBS
import BiometricsVaultAppleCheck
#else
import BiometricsVaultApple
#endif

typealias Query = KeychainQuery

struct Login: Codable, Sendable, Equatable {
    var user: String
    var token: String
}

/// One recorded SecItem call.
enum KeychainCall: Equatable, CustomStringConvertible {
    case add(Query)
    case copy(Query)
    case update(Query, Query)
    case delete(Query)

    var description: String {
        switch self {
        case .add(let query): "add\(query)"
        case .copy(let query): "copy\(query)"
        case .update(let query, let changes): "update\(query) -> \(changes)"
        case .delete(let query): "delete\(query)"
        }
    }
}

/// An in-memory Keychain with the Apple semantics the store relies on (documented per rule below).
final class FakeKeychain: KeychainClient, Sendable {
    struct Item: Sendable, Equatable {
        var service: String
        var account: String
        var fileBased: Bool
        var generic: Data?
        var value: SecretBytes
        var accessible: KeychainAccessibility?
        var accessControl: KeychainAccessControlFlags?
        var synchronizable: Bool
        var accessGroup: String?
    }

    private struct State: Sendable {
        var items: [Item] = []
        var calls: [KeychainCall] = []
        /// Statuses to return instead of running the call: (call kind, status), consumed in order.
        var injected: [(kind: String, status: Int32)] = []
    }

    private let state = LockedValue(State())
    let enrollment: @Sendable () -> EnrollmentReadings

    /// - Parameters:
    ///   - macOS: queries without kSecUseDataProtectionKeychain see the file-based keychain.
    ///   - enrollment: what LocalAuthentication reports now (pass a `FakeLADevice`'s `enrollmentReadings`).
    init(
        macOS: Bool = false,
        enrollment: @escaping @Sendable () -> EnrollmentReadings = { EnrollmentReadings(biometryStateHash: Data([0xE1])) }
    ) {
        self.macOS = macOS
        self.enrollment = enrollment
    }

    var calls: [KeychainCall] { state.withLock { $0.calls } }
    /// Every item except the store's passcode markers (``markers``).
    var items: [Item] { state.withLock { $0.items.filter { !$0.account.hasPrefix(KeychainStore.passcodeMarkerPrefix) } } }
    /// The accounts of the store's passcode markers.
    var markers: [String] {
        state.withLock { $0.items.map(\.account).filter { $0.hasPrefix(KeychainStore.passcodeMarkerPrefix) } }
    }
    func resetCalls() { state.withLock { $0.calls = [] } }

    /// The next `kind` call ("add", "copy", "update", "delete") returns `status` without doing anything.
    func inject(_ kind: String, _ status: Int32) { state.withLock { $0.injected.append((kind, status)) } }

    /// Puts an item in place directly, as another program (or BiometricsVault 0.30) would have.
    func seed(_ item: Item) { state.withLock { $0.items.append(item) } }

    func currentEnrollmentReadings() -> EnrollmentReadings { enrollment() }

    /// Apple: removing the device passcode deletes every "when passcode set, this device only" item, which
    /// every item with an access control is. Plain items stay.
    func removePasscode() {
        state.withLock { $0.items.removeAll { $0.accessControl != nil } }
    }

    func add(_ attributes: Query) -> Int32 {
        state.withLock { state in
            state.calls.append(.add(attributes))
            if let status = Self.takeInjected("add", &state) { return status }
            // Apple: kSecAttrAccessible beside kSecAttrAccessControl, or a synchronizable protected item: -50.
            if attributes[.accessControl] != nil && attributes[.accessible] != nil { return KeychainStatus.param }
            if attributes[.accessControl] != nil && attributes[.synchronizable] == .bool(true) { return KeychainStatus.param }
            guard case .text(let service)? = attributes[.service], case .text(let account)? = attributes[.account]
            else { return KeychainStatus.param }
            // Apple: an item may have no data (the store's passcode markers).
            var value = SecretBytes([UInt8]())
            if case .secret(let data)? = attributes[.valueData] { value = data }
            let fileBased = attributes[.useDataProtectionKeychain] == nil && macOS
            if state.items.contains(where: { $0.service == service && $0.account == account && $0.fileBased == fileBased }) {
                return KeychainStatus.duplicateItem
            }
            var item = Item(
                service: service, account: account, fileBased: fileBased, generic: nil, value: value, accessible: nil,
                accessControl: nil, synchronizable: attributes[.synchronizable] == .bool(true), accessGroup: nil)
            if case .textData(let text)? = attributes[.generic] { item.generic = Data(text.utf8) }
            if case .accessibility(let accessibility)? = attributes[.accessible] { item.accessible = accessibility }
            if case .accessControl(_, let flags)? = attributes[.accessControl] { item.accessControl = flags }
            if case .text(let group)? = attributes[.accessGroup] { item.accessGroup = group }
            state.items.append(item)
            return KeychainStatus.success
        }
    }

    func copyMatching(_ query: Query) -> KeychainCopyResult {
        state.withLock { state in
            state.calls.append(.copy(query))
            if let status = Self.takeInjected("copy", &state) { return KeychainCopyResult(status: status) }
            let found = state.items.filter { matches($0, query) }
            guard !found.isEmpty else { return KeychainCopyResult(status: KeychainStatus.itemNotFound) }
            let selected = query[.matchLimit] == .matchAll ? found : [found[0]]
            if query[.returnData] == .bool(true) {
                // Apple: the data of an item behind an access control needs a context that satisfied it; with
                // interactionNotAllowed the query fails instead of prompting.
                for item in selected where item.accessControl != nil {
                    guard case .context(.evaluated(let context))? = query[.authenticationContext],
                        let fake = context as? FakeLAContext, fake.isEvaluated
                    else { return KeychainCopyResult(status: KeychainStatus.interactionNotAllowed) }
                }
                return KeychainCopyResult(status: KeychainStatus.success, items: selected.map { KeychainFoundItem(value: $0.value) })
            }
            return KeychainCopyResult(
                status: KeychainStatus.success,
                items: selected.map { KeychainFoundItem(account: $0.account, generic: $0.generic) })
        }
    }

    func update(_ query: Query, _ changes: Query) -> Int32 {
        state.withLock { state in
            state.calls.append(.update(query, changes))
            if let status = Self.takeInjected("update", &state) { return status }
            guard let index = state.items.firstIndex(where: { matches($0, query) }) else { return KeychainStatus.itemNotFound }
            // Modelled conservatively: changing an access-controlled item needs its evaluated context.
            if state.items[index].accessControl != nil {
                guard case .context(.evaluated(let context))? = query[.authenticationContext],
                    let fake = context as? FakeLAContext, fake.isEvaluated
                else { return KeychainStatus.interactionNotAllowed }
            }
            var item = state.items[index]
            if case .text(let account)? = changes[.account] {
                if state.items.contains(where: { $0.service == item.service && $0.account == account && $0.fileBased == item.fileBased }) {
                    return KeychainStatus.duplicateItem
                }
                item.account = account
            }
            if case .secret(let value)? = changes[.valueData] { item.value = value }
            if case .textData(let text)? = changes[.generic] { item.generic = Data(text.utf8) }
            state.items[index] = item
            return KeychainStatus.success
        }
    }

    func delete(_ query: Query) -> Int32 {
        state.withLock { state in
            state.calls.append(.delete(query))
            if let status = Self.takeInjected("delete", &state) { return status }
            let before = state.items.count
            state.items.removeAll { matches($0, query) }
            return state.items.count == before ? KeychainStatus.itemNotFound : KeychainStatus.success
        }
    }

    let macOS: Bool

    private func matches(_ item: Item, _ query: Query) -> Bool {
        guard case .text(let service)? = query[.service], item.service == service else { return false }
        if case .text(let account)? = query[.account], item.account != account { return false }
        let fileBased = query[.useDataProtectionKeychain] == nil && macOS
        guard item.fileBased == fileBased else { return false }
        // Apple: without kSecAttrSynchronizable(Any) a query matches only non-synchronizable items.
        if item.synchronizable && query[.synchronizable] != .synchronizableAny && query[.synchronizable] != .bool(true) {
            return false
        }
        if case .text(let group)? = query[.accessGroup], item.accessGroup != group { return false }
        return true
    }

    private static func takeInjected(_ kind: String, _ state: inout State) -> Int32? {
        guard let index = state.injected.firstIndex(where: { $0.kind == kind }) else { return nil }
        return state.injected.remove(at: index).status
    }
}

/// Scripted LocalAuthentication state shared by every context made from it (one "device").
final class FakeLADevice: Sendable {
    struct State: Sendable {
        var biometryTypeRawValue = 2  // faceID
        var enrolled = true
        var passcodeSet = true
        var lockedOut = false
        /// `domainState.biometry.stateHash`: `nil` before iOS 18 / macOS 15.
        var biometryStateHash: Data? = Data([0xAB, 0x01])
        /// `evaluatedPolicyDomainState`: `nil` on an OS that no longer offers it.
        var policyDomainState: Data? = Data([0x5D, 0x01])
        /// Answers for the next prompts; empty means success. `nil` means "never answers" until invalidated.
        var outcomes: [LocalAuthenticationOutcome?] = []
        var contextsMade = 0
    }

    let state = LockedValue(State())
    let contexts = LockedValue<[FakeLAContext]>([])

    func makeContext() -> FakeLAContext {
        let context = FakeLAContext(device: self)
        state.withLock { $0.contextsMade += 1 }
        contexts.withLock { $0.append(context) }
        return context
    }

    var authenticator: LocalAuthenticator {
        LocalAuthenticator(makeContext: { [self] in makeContext() })
    }

    /// What a probe of this device reads now (for `FakeKeychain(enrollment:)`).
    @Sendable func enrollmentReadings() -> EnrollmentReadings {
        state.withLock { state in
            guard state.enrolled else { return .none }
            return EnrollmentReadings(biometryStateHash: state.biometryStateHash, policyDomainState: state.policyDomainState)
        }
    }

    /// Every evaluation shown, over every context.
    var evaluations: [FakeLAContext.Evaluation] { contexts.withLock { $0.flatMap(\.evaluations) } }
}

/// One fake LAContext.
final class FakeLAContext: LocalAuthenticationContext, Sendable {
    struct Evaluation: Equatable, Sendable {
        var evaluation: LocalAuthenticationEvaluation
        var prompt: LocalAuthenticationPromptTexts
    }

    private struct State: Sendable {
        var evaluated = false
        var invalidated = false
        var interactionForbidden = false
        var evaluations: [Evaluation] = []
        var pendingReply: (@Sendable (LocalAuthenticationOutcome) -> Void)?
        var probes: [LocalAuthenticationPolicy] = []
    }

    private let device: FakeLADevice
    private let state = LockedValue(State())

    init(device: FakeLADevice) { self.device = device }

    var isEvaluated: Bool { state.withLock { $0.evaluated && !$0.invalidated } }
    var isInvalidated: Bool { state.withLock { $0.invalidated } }
    var interactionForbidden: Bool { state.withLock { $0.interactionForbidden } }
    var evaluations: [Evaluation] { state.withLock { $0.evaluations } }

    func probe(_ policy: LocalAuthenticationPolicy) -> LocalAuthenticationProbe {
        state.withLock { $0.probes.append(policy) }
        let device = device.state.withLock { $0 }
        // Apple's order of reasons: no passcode, no hardware, nothing enrolled, lockout.
        let code: Int?
        if !device.passcodeSet {
            code = LAErrorCode.passcodeNotSet
        } else if policy == .biometrics && device.biometryTypeRawValue == 0 {
            code = LAErrorCode.biometryNotAvailable
        } else if policy == .biometrics && !device.enrolled {
            code = LAErrorCode.biometryNotEnrolled
        } else if policy == .biometrics && device.lockedOut {
            code = LAErrorCode.biometryLockout
        } else {
            code = nil
        }
        return LocalAuthenticationProbe(
            canEvaluate: code == nil, errorCode: code, biometryTypeRawValue: device.biometryTypeRawValue,
            enrollment: device.enrolled
                ? EnrollmentReadings(biometryStateHash: device.biometryStateHash, policyDomainState: device.policyDomainState)
                : .none)
    }

    func evaluate(
        _ evaluation: LocalAuthenticationEvaluation, prompt: LocalAuthenticationPromptTexts,
        reply: @escaping @Sendable (LocalAuthenticationOutcome) -> Void
    ) {
        let outcome: LocalAuthenticationOutcome?? = device.state.withLock { device in
            device.outcomes.isEmpty ? .some(.success) : .some(device.outcomes.removeFirst())
        }
        let immediate: LocalAuthenticationOutcome? = state.withLock { state in
            if state.invalidated { return .failure(code: LAErrorCode.invalidContext) }
            state.evaluations.append(Evaluation(evaluation: evaluation, prompt: prompt))
            guard let answer = outcome ?? nil else {
                state.pendingReply = reply
                return nil
            }
            if answer == .success { state.evaluated = true }
            return answer
        }
        if let immediate { reply(immediate) }
    }

    func forbidInteraction() { state.withLock { $0.interactionForbidden = true } }

    func invalidate() {
        // Apple: a pending evaluation then fails with LAError.appCancel.
        let pending = state.withLock { state in
            state.invalidated = true
            defer { state.pendingReply = nil }
            return state.pendingReply
        }
        pending?(.failure(code: LAErrorCode.appCancel))
    }

    func withKeychainContext<Result>(_ body: (AnyObject) throws -> Result) rethrows -> Result {
        try body(self)
    }
}
#endif
