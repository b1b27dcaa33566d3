#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Performs the actions of ``VaultStateMachine``: the only place where a vault operation touches the
/// store, the authenticator or the clock.
struct VaultDriver<Credentials: Codable & Sendable>: Sendable {
    let configuration: VaultConfiguration
    let id: SecretItemID

    /// What an operation leaves behind.
    struct Outcome: Sendable {
        var kind: VaultStateKind
        var credentials: Credentials?
        var session: VaultSession?
        var policy: ProtectionPolicy?
    }

    /// The handle the operation starts from.
    struct Handle: Sendable {
        var kind: VaultStateKind
        var session: VaultSession?
        /// The stored item's policy (protected handles).
        var policy: ProtectionPolicy?
        /// Empty handles retrieved over an invalidated item: that item's header, which a store may replace.
        var invalidatedHeader: ItemHeader? = nil
    }

    // MARK: Retrieve

    static func retrieve(key: String, configuration: VaultConfiguration) throws(VaultError) -> Vault<Credentials> {
        let id = try SecretItemID(service: configuration.service, key: key)
        let driver = VaultDriver(configuration: configuration, id: id)
        // Before the read, which may wait for the store's connection anyway: see `textType`.
        let textType = Self.textType
        var item = try driver.storeCall { try configuration.store.read(id, authorization: nil) }
        let reinstalled = try driver.resetIfReinstalled(found: item != nil)
        if reinstalled { item = nil }
        // Nothing stored: the store may know that the OS destroyed the item (passcode removed).
        let vanished = item == nil && !reinstalled ? configuration.store.vanishedItemReason(id) : nil
        let header = item?.header
        var enrollmentNow = header?.enrollment
        var invalidated = false
        if let header, let policy = header.protection.policy, policy.bindsEnrollment {
            // If the enrolled set cannot be read now, the item is not declared invalid on a guess:
            // unlock() will ask the platform again (and says why it cannot prompt).
            do {
                let answered = try configuration.authenticator.currentEnrollment()
                let nothingEnrolled = answered == nil && header.enrollment != nil
                if !nothingEnrolled
                    || RetrieveClassifier.confirmsNothingEnrolled(configuration.authenticator.availability(for: policy))
                {
                    enrollmentNow = answered
                }
            } catch {}
            invalidated = header.enrollment != enrollmentNow
        }
        let needsAvailability = header == nil || header?.protection == ItemProtection.none || invalidated
        let availability =
            needsAvailability ? configuration.authenticator.availability(for: configuration.policy) : .available
        let decision = RetrieveClassifier.classify(
            header: header, availability: availability, currentEnrollment: enrollmentNow)
        switch decision {
        case .empty(let offered, let invalidation):
            let empty = EmptyVault<Credentials>(
                driver: driver, invalidation: reinstalled ? .appReinstalled : invalidation ?? vanished,
                biometricsOffered: offered,
                invalidatedHeader: invalidation == nil ? nil : header)
            return offered ? .emptyWithBiometrics(empty) : .empty(empty)
        case .keychain(let upgradable):
            guard let payload = item?.payload else {
                throw VaultError(.corruptedItem, underlying: .message("plain item returned without payload"))
            }
            let credentials = try decode(payload, as: textType)
            let vault = KeychainSecureVault(driver: driver, credentials: credentials, upgradable: upgradable)
            return upgradable ? .keychainUpgradable(vault) : .keychain(vault)
        case .locked(let policy):
            if let unlocked = driver.unlockedBySession(policy: policy) { return .biometrics(unlocked) }
            return .locked(LockedBiometricsSecureVault(driver: driver, policy: policy))
        }
    }

    /// With an ``InstallMarker``: a key this install has not marked yet whose item exists was stored by an
    /// earlier install, so the item is deleted (and any session of it ended). Marks the key either way;
    /// returns whether it deleted. A failed delete throws and marks nothing, so the next retrieve retries.
    private func resetIfReinstalled(found: Bool) throws(VaultError) -> Bool {
        guard let marker = configuration.installMarker, !marker.contains(id) else { return false }
        if found {
            try storeCall { try configuration.store.delete(id) }
            configuration.sessions.endAll(for: id)
        }
        marker.insert(id)
        return found
    }

    /// Inside a reusable session (`.session(timeout:)`, not locked, not timed out) of this configuration,
    /// the item read with the session's authorization, without a prompt. `nil` when there is no such
    /// session or the read fails: then retrieve reports `.locked` and `unlock()` says what is wrong.
    private func unlockedBySession(policy: ProtectionPolicy) -> BiometricsSecureVault<Credentials>? {
        let now = configuration.clock.now()
        guard let session = configuration.sessions.reusableSession(for: id, now: now, reuse: configuration.reuse),
            let credentials = try? readProtected(authorization: session.authorization)
        else { return nil }
        let outcome = Outcome(kind: .biometrics, credentials: credentials, session: session, policy: policy)
        return BiometricsSecureVault(outcome: outcome, driver: self)
    }

    /// The non-throwing form keeps the original API: errors become an empty vault that says why.
    static func retrieveReportingErrors(key: String, configuration: VaultConfiguration) -> Vault<Credentials> {
        do {
            return try retrieve(key: key, configuration: configuration)
        } catch {
            let driver = VaultDriver(configuration: configuration, id: SecretItemID.unchecked(configuration.service, key))
            let offered = configuration.authenticator.availability(for: configuration.policy).isAvailable
            let empty = EmptyVault<Credentials>(driver: driver, invalidation: .unreadable(error), biometricsOffered: offered)
            return offered ? .emptyWithBiometrics(empty) : .empty(empty)
        }
    }

    // MARK: Operations

    /// Runs an operation that never prompts.
    func run(_ operation: VaultOperation, from handle: Handle, credentials: Credentials?) throws(VaultError) -> Outcome {
        _ = try SecretItemID(service: id.service, key: id.key)
        var machine = VaultStateMachine(handle.kind)
        var context = try Context(driver: self, handle: handle, credentials: credentials)
        let action = machine.requested(operation, session: snapshot(of: context.session))
        switch try advance(from: action, machine: &machine, context: &context, handle: handle) {
        case .finished(let kind):
            return context.outcome(kind)
        case .needsAuthentication, .needsOwnerAuthentication:
            preconditionFailure("Invalid state: \(operation) from \(handle.kind) cannot prompt synchronously")
        }
    }

    /// Runs an operation that may prompt: the same steps as the synchronous run, with the prompts the
    /// state machine asks for in between.
    func run(_ operation: VaultOperation, from handle: Handle, credentials: Credentials?) async throws(VaultError)
        -> Outcome
    {
        _ = try SecretItemID(service: id.service, key: id.key)
        var machine = VaultStateMachine(handle.kind)
        var context = try Context(driver: self, handle: handle, credentials: credentials)
        let epoch = configuration.sessions.epoch
        if operation == .unlock { context.reuseSession(for: id) }
        var action = machine.requested(operation, session: snapshot(of: context.session))
        while true {
            switch try advance(from: action, machine: &machine, context: &context, handle: handle) {
            case .finished(let kind):
                // lockAllSessions() while this ran (e.g. during the prompt): the new session ends too.
                configuration.sessions.endIfLockedAll(since: epoch, context.session)
                return context.outcome(kind)
            case .needsAuthentication:
                let result = await authenticate(policy: context.policy)
                switch result {
                case .success(let authorization): context.authenticated(authorization)
                case .failure(let error): context.lastError = error  // keeps the authenticator's explanation
                }
                action = machine.authenticationCompleted(result.map { _ in () })
            case .needsOwnerAuthentication:
                let result = await authenticateOwner()
                if case .failure(let error) = result { context.lastError = error }
                action = machine.authenticationCompleted(result)
            }
        }
    }

    /// Where an operation stands when ``advance(from:machine:context:handle:)`` returns.
    private enum Progress {
        case finished(VaultStateKind)
        case needsAuthentication
        case needsOwnerAuthentication
    }

    /// The one driver loop: performs the state machine's actions (store calls, session changes) until the
    /// operation finishes, fails (throws), or needs a prompt, which only the asynchronous run can show.
    private func advance(
        from action: VaultStateMachine.Action, machine: inout VaultStateMachine, context: inout Context, handle: Handle
    ) throws(VaultError) -> Progress {
        var action = action
        while true {
            switch action {
            case .authenticate:
                return .needsAuthentication
            case .authenticateOwner:
                return .needsOwnerAuthentication
            case .fail(let code):
                throw context.error(for: code)
            case .write where handle.session.map({ !snapshot(of: $0).isActive }) == true:
                // The handle's session was locked (lock() on a copy, lockAllSessions()) since the
                // operation started, typically while it waited for its prompt: a locked vault writes nothing.
                context.newAuthorization?.invalidate()
                throw VaultError(.vaultLocked, underlying: .message("the vault was locked while the operation waited for its prompt; nothing was written"))
            case .finish(let kind):
                return .finished(kind)
            case .write, .readProtected, .delete, .endSession:
                action = perform(action, machine: &machine, context: &context)
            }
        }
    }

    // MARK: Private

    /// Mutable state of one operation run.
    private struct Context: Sendable {
        let driver: VaultDriver
        var payload: SecretBytes?
        var credentials: Credentials?
        var session: VaultSession?
        var policy: ProtectionPolicy
        var newAuthorization: Authorization?
        var lastError: VaultError?
        let invalidatedHeader: ItemHeader?

        init(driver: VaultDriver, handle: Handle, credentials: Credentials?) throws(VaultError) {
            self.driver = driver
            self.invalidatedHeader = handle.invalidatedHeader
            self.session = handle.session
            self.policy = handle.policy ?? driver.configuration.policy
            if let credentials {
                self.credentials = credentials
                self.payload = try VaultDriver.encode(credentials)
            }
        }

        mutating func reuseSession(for id: SecretItemID) {
            let now = driver.configuration.clock.now()
            session = driver.configuration.sessions.reusableSession(for: id, now: now, reuse: driver.configuration.reuse)
        }

        mutating func authenticated(_ authorization: Authorization) {
            newAuthorization = authorization
        }

        var authorization: Authorization? { newAuthorization ?? session?.authorization }

        func error(for code: VaultError.Code) -> VaultError {
            if let lastError, lastError.code == code { return lastError }
            return VaultError(code)
        }

        func outcome(_ kind: VaultStateKind) -> Outcome {
            Outcome(kind: kind, credentials: credentials, session: session, policy: kind == .keychain ? nil : policy)
        }
    }

    private func perform(_ action: VaultStateMachine.Action, machine: inout VaultStateMachine, context: inout Context)
        -> VaultStateMachine.Action
    {
        let result: Result<Void, VaultError>
        switch action {
        case .write(let protected, let expecting):
            result = Result { () throws(VaultError) in
                try write(context: context, protected: protected, expecting: expecting)
            }
            if case .success = result { finishWrite(protected: protected, context: &context) }
        case .readProtected:
            result = Result { () throws(VaultError) in
                context.credentials = try readProtected(context: context)
            }
            if case .success = result, let authorization = context.newAuthorization {
                let session = VaultSession(id: id, authorization: authorization, at: configuration.clock.now())
                configuration.sessions.register(session)
                context.session = session
            }
        case .delete:
            result = Result { () throws(VaultError) in try storeCall { try configuration.store.delete(id) } }
            if case .success = result {
                configuration.sessions.endAll(for: id)
                context.session?.lock()
                context.session = nil
            }
        case .endSession:
            if let session = context.session { configuration.sessions.end(session) }
            return machine.storeCompletedWithoutIO()
        case .fail, .finish, .authenticate, .authenticateOwner:
            preconditionFailure("Invalid state: \(action) is not an I/O action")
        }
        if case .failure(let error) = result {
            context.lastError = error
            // A fresh authorization that did not lead anywhere must not linger.
            if let fresh = context.newAuthorization, fresh !== context.session?.authorization { fresh.invalidate() }
        }
        return machine.storeCompleted(result)
    }

    private func finishWrite(protected: Bool, context: inout Context) {
        let now = configuration.clock.now()
        if protected {
            if let session = context.session, let fresh = context.newAuthorization {
                session.renew(with: fresh, at: now)
                configuration.sessions.register(session)
            } else if context.session == nil, let fresh = context.newAuthorization {
                let session = VaultSession(id: id, authorization: fresh, at: now)
                configuration.sessions.register(session)
                context.session = session
            }
        } else if let session = context.session {
            // Downgraded: the protected item is gone, and so is its session.
            configuration.sessions.end(session)
            context.session = nil
        }
    }

    private func write(context: Context, protected: Bool, expecting: WriteExpectation) throws(VaultError) {
        guard let payload = context.payload else { preconditionFailure("Invalid state: write without credentials") }
        let header: ItemHeader
        if protected {
            let enrollment = context.policy.bindsEnrollment ? context.authorization?.enrollment : nil
            header = ItemHeader(protection: .protected(context.policy), enrollment: enrollment)
        } else {
            header = ItemHeader(protection: .none)
        }
        // The store checks the condition under its own cross-process lock: no other writer, in this
        // process or another, runs between the check and the write.
        let condition: WriteCondition
        switch expecting {
        case .empty:
            condition = .replacing(context.invalidatedHeader)
        case .plain:
            condition = .plain
        case .protected:
            // An item invalidated by an enrollment change stays invalid: a prompt passed with the new
            // enrollment must not re-bind it (the enrollment binding is part of the condition).
            condition = .protected(context.policy, enrollment: context.authorization?.enrollment)
        }
        try storeCall {
            try configuration.store.write(
                StoredItem(header: header, payload: payload), for: id, if: condition,
                authorization: protected ? context.authorization : nil)
        }
    }

    private func readProtected(context: Context) throws(VaultError) -> Credentials {
        try readProtected(authorization: context.authorization)
    }

    private func readProtected(authorization: Authorization?) throws(VaultError) -> Credentials {
        guard let authorization, authorization.isValid else {
            throw VaultError(.vaultLocked, underlying: .message("the authorization was invalidated"))
        }
        let item = try storeCall { try configuration.store.read(id, authorization: authorization) }
        guard let item else { throw VaultError(.itemNotFound, underlying: .message("the stored item was deleted")) }
        guard case .protected(let policy) = item.header.protection else {
            throw VaultError(.invalidVault, underlying: .message("the stored item is no longer protected"))
        }
        if policy.bindsEnrollment, let matched = authorization.enrollment, item.header.enrollment != matched {
            throw VaultError(.biometryChanged, underlying: .message("enrolled biometrics changed since the item was stored"))
        }
        guard let payload = item.payload else {
            throw VaultError(.corruptedItem, underlying: .message("protected item returned without payload"))
        }
        return try Self.decode(payload)
    }

    private func authenticate(policy: ProtectionPolicy) async -> Result<Authorization, VaultError> {
        do {
            try Task.checkCancellation()
            return .success(try await configuration.authenticator.authenticate(for: policy, prompt: configuration.prompt))
        } catch {
            return .failure(VaultError.wrapping(error, as: .authenticationFailed))
        }
    }

    private func authenticateOwner() async -> Result<Void, VaultError> {
        do {
            try Task.checkCancellation()
            try await configuration.authenticator.authenticateOwner(prompt: configuration.prompt)
            return .success(())
        } catch {
            return .failure(VaultError.wrapping(error, as: .authenticationFailed))
        }
    }

    private func snapshot(of session: VaultSession?) -> SessionSnapshot {
        guard let session else { return .none }
        return session.snapshot(now: configuration.clock.now(), reuse: configuration.reuse)
    }

    /// Calls a backend; anything it throws that is not a `VaultError` becomes `storeUnavailable`.
    func storeCall<Result>(_ body: () throws -> Result) throws(VaultError) -> Result {
        do { return try body() } catch { throw VaultError.wrapping(error, as: .storeUnavailable) }
    }

    static func encode(_ credentials: Credentials) throws(VaultError) -> SecretBytes {
        let data: Data
        do {
            if let text = credentials as? any JSONTextCredentials {
                // JSON already: stored exactly as the type spells it (no re-encoding, nothing converted).
                data = try text.jsonTextForStorage()
            } else {
                let encoder = JSONEncoder()
                // Sorted keys: the same credentials always give the same bytes (other tools reading a plain
                // item see stable JSON). Decoding does not depend on the order, so 0.30 items still read.
                encoder.outputFormatting = [.sortedKeys]
                data = try encoder.encode(credentials)
            }
        } catch {
            throw VaultError(.encodingFailed, underlying: .message("\(Credentials.self) does not encode to JSON"))
        }
        guard data.count <= VaultLimits.maximumCredentialsSize else {
            throw VaultError(
                .credentialsTooLarge,
                underlying: .message("\(data.count) bytes; the limit is \(VaultLimits.maximumCredentialsSize)"))
        }
        return SecretBytes(data)
    }

    /// `Credentials` as ``JSONTextCredentials``; `nil` when it is stored as `JSONEncoder` output.
    ///
    /// The cast is a protocol-conformance lookup: the first one for a type in a process scans every
    /// conformance record in the binary (thousands in a static executable). `retrieve` asks before its
    /// read instead of after the last reply, where the CLI's `show` waited for it.
    static var textType: (any JSONTextCredentials.Type)? { Credentials.self as? any JSONTextCredentials.Type }

    static func decode(
        _ payload: SecretBytes, as textType: (any JSONTextCredentials.Type)? = textType
    ) throws(VaultError) -> Credentials {
        do {
            return try payload.withUnsafeBytes { raw in
                if let textType {
                    guard let credentials = try textType.init(storedJSONText: Data(raw)) as? Credentials else {
                        throw VaultError(.corruptedItem)
                    }
                    return credentials
                }
                return try JSONDecoder().decode(Credentials.self, from: Data(raw))
            }
        } catch {
            throw VaultError(.corruptedItem, underlying: .message("the stored bytes do not decode as \(Credentials.self)"))
        }
    }
}

extension VaultStateMachine {
    /// `endSession` needs no store call; it completes at once.
    mutating func storeCompletedWithoutIO() -> Action {
        guard case .finished(let kind) = state else { preconditionFailure("Invalid state: \(state)") }
        return .finish(kind)
    }
}

extension SecretItemID {
    /// For the error path of the non-throwing retrieve only: the ID is never used for I/O unless valid.
    static func unchecked(_ service: String, _ key: String) -> SecretItemID {
        (try? SecretItemID(service: service, key: key)) ?? SecretItemID(uncheckedService: service, key: key)
    }
}
