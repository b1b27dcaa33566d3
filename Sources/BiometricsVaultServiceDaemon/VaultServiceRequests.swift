#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultLinuxAuth
import BiometricsVaultProcess
import BiometricsVaultService
import BiometricsVaultTPM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The caller of one request, as the bus vouches for it, and the process the kernel named for its
/// connection if it attested it (``PeerAttestation``).
struct Caller: Sendable {
    /// Its unique connection name.
    let connection: String
    let uid: UInt32
    /// The pid the bus reports: the process that connected, which may have exited and its number been
    /// given to another since. Only for what the audit and the prompts show, never for a decision.
    let pid: UInt32
    let process: AttestedProcess?

    /// The process to name and to ask polkit about: the attested one while it runs, else the bus's pid.
    var processID: UInt32 { process?.pid.map { UInt32(bitPattern: $0) } ?? pid }
}

/// What the vault service does for each method of its interface, for the calling user only: its own
/// encrypted store under the state directory, its own failed-attempt count, its own fingerprints
/// (fprintd `Claim(user)`), its own password (polkit, asked through the caller's agent).
final class VaultServiceRequests: Sendable {
    /// `users/<uid>/` under it holds each user's store, `lockout/` the failed-attempt counts.
    let stateDirectory: String
    /// The TPM that seals the stores' keys, when there is one.
    let tpm: TPMConfiguration
    let grants = Grants()
    let windows = ServiceWindows()
    /// logind, where it runs: the callers' login sessions.
    let sessions = LoginSessions()
    let audit: AuditLog
    private let stores = LockedValue<[UInt32: EncryptedFileStore]>([:])
    private let ownerReady = LockedValue(false)
    let limits: ServiceLimits
    /// Each user's calls in progress and checks of the last minute, against `limits`.
    let admission: CallAdmission
    /// The fingerprint reader's turns.
    let reader = ReaderQueue()
    /// Each user's prompter and the checks shown on it.
    let prompters = Prompters()
    /// When the service started.
    private let started = ContinuousClock.now
    /// Each user's, held while a write checks the limits and writes: two writes of a user never both take
    /// the last place, and one user's count of a full store holds up no other user's write.
    private let writing = LockedValue<[UInt32: LockedValue<Void>]>([:])

    init(stateDirectory: String, tpm: TPMConfiguration = TPMConfiguration(), limits: ServiceLimits = ServiceLimits()) {
        self.stateDirectory = stateDirectory
        self.tpm = tpm
        self.limits = limits
        admission = CallAdmission(limits: limits)
        audit = AuditLog(stateDirectory: stateDirectory)
    }

    func status(_ caller: Caller, scope: ServiceWindows.Scope?) throws(VaultError) -> VaultServiceStatus {
        let owner = ownerStatus().description
        let version = "1.\(VaultServiceInterface.minorVersion)"
        let open = scope.map { windows.open(uid: caller.uid, scope: $0) } ?? []
        let windowList = open.map { VaultServiceStatus.Window(service: $0.service, policy: $0.policy.rawValue, seconds: $0.seconds) }
        guard let fingerprint = try? fingerprintAuthenticator(caller) else {
            var status = VaultServiceStatus(
                biometry: "noFprintd", enrollment: nil, failedAttempts: 0, owner: owner, version: version, windows: windowList)
            status.caller = AuditLog.describe(pid: caller.processID)
            return status
        }
        let probe = fingerprint.probe(claiming: false, enrollment: true)
        let failures = (try? fingerprint.consecutiveFailures()) ?? FailedAttemptCounter.limit
        let biometry: String
        switch probe.reason {
        case .available: biometry = failures >= FailedAttemptCounter.limit ? "lockedOut" : "available"
        case .noDevice: biometry = "noReader"
        case .noFprintd, .notEnrolled, .permissionDenied, .deviceBusy: biometry = probe.reason.description
        }
        var status = VaultServiceStatus(
            biometry: biometry, enrollment: probe.enrollment, failedAttempts: failures, owner: owner, version: version,
            windows: windowList)
        status.caller = AuditLog.describe(pid: caller.processID)
        return status
    }

    /// Where a window a prompt opens is: the caller's terminal session, or the caller's process tree.
    enum WindowScopeRequest: String {
        case terminal
        case command
    }

    /// Issues a grant for the caller's connection: at once inside an open window for `service` and
    /// `policy` of the caller's terminal session or of a process tree the caller is in, else after the
    /// caller's prompt (finger, or password through polkit). A prompt then opens a window of
    /// `windowSeconds` when asked: for the caller's terminal session (if it has one) and `policy`, or,
    /// for `command`, for the caller's process and its descendants and every policy the prompt
    /// satisfies. `purpose`: what the prompt says the check is for, when the service knows better than
    /// the item service's name. Returns how it was granted, for the audit log.
    func authenticate(
        _ caller: Caller, policy: String, reason: String, service: String, windowSeconds: Int, windowScope: String,
        scopes: ServiceWindows.CallerScopes, purpose: String? = nil
    ) async throws -> (token: [UInt8], enrollment: EnrollmentFingerprint?, how: String) {
        try Self.refuseExited(caller)
        guard let policy = ProtectionPolicy(rawValue: policy) else {
            throw VaultError(.invalidVault, underlying: .message("unknown protection policy"))
        }
        guard let requested = WindowScopeRequest(rawValue: windowScope.isEmpty ? "terminal" : windowScope) else {
            throw VaultError(.invalidVault, underlying: .message("unknown window scope"))
        }
        let candidates = (scopes.session.map { [$0] } ?? []) + scopes.tree
        for scope in candidates {
            let key = ServiceWindows.Key(uid: caller.uid, scope: scope, service: service, policy: policy)
            if let method = try usableWindow(key, caller) {
                let enrollment: EnrollmentFingerprint? = if case .fingerprint(let set) = method { set } else { nil }
                let token = grants.issue(connection: caller.connection, uid: caller.uid, method: method, service: service)
                return (token, enrollment, "inside a window")
            }
        }
        let authenticator = try fingerprintAuthenticator(caller)
        let prompt = PromptText(reason: reason)
        // The password alone (polkit's agent) needs no turn at the reader.
        if policy != .devicePasscode { try refuseReaderOfAnotherUsersSeat(caller) }
        let sight = try await sight(of: caller, atReader: policy != .devicePasscode)
        try admission.admitCheck(uid: caller.uid)
        let reader = reader
        let (authorization, shown) = try await shownCheck(
            caller, sight, asking: policy == .devicePasscode ? .password : .finger,
            for: purpose ?? "\(service) (\(policy.rawValue))", reason: reason
        ) {
            policy == .devicePasscode
                ? try await authenticator.authenticate(for: policy, prompt: prompt)
                : try await reader.hold(uid: caller.uid) { try await authenticator.authenticate(for: policy, prompt: prompt) }
        }
        // A userPresence prompt answered by a finger still reports the set that matched.
        let method: Grant.Method = authorization.enrollment.map { .fingerprint($0) } ?? .password
        var how = (authorization.enrollment == nil ? "password" : "finger") + "; shown: \(shown)"
        if windowSeconds > 0 {
            let opening: [ServiceWindows.Key]
            switch requested {
            case .terminal:
                opening = scopes.session.map { [ServiceWindows.Key(uid: caller.uid, scope: $0, service: service, policy: policy)] } ?? []
            case .command:
                let served: [ProtectionPolicy] = authorization.enrollment == nil
                    ? [.devicePasscode, .userPresence] : [.biometryCurrentSet, .biometryAny, .userPresence]
                opening = scopes.tree.first.map { root in served.map { ServiceWindows.Key(uid: caller.uid, scope: root, service: service, policy: $0) } } ?? []
            }
            for key in opening {
                if windows.open(key, seconds: windowSeconds, method: method, session: scopes.loginSession) {
                    audit.record(caller, "windowOpened", item: service, result: "\(key.policy.rawValue) for \(min(windowSeconds, ServiceWindows.maximumSeconds)) s on \(key.scope)")
                } else {
                    how += "; no window (the user holds \(ServiceWindows.maximumPerUser))"
                    break
                }
            }
        }
        return (grants.issue(connection: caller.connection, uid: caller.uid, method: method), authorization.enrollment, how)
    }

    /// The reader is the seat's: while logind says another user's session is the active one of `seat0`
    /// (where the reader is), that user is at the machine, and a finger on it is theirs; no other user's
    /// check takes it. Without logind, or with no session active there, every user takes turns.
    private func refuseReaderOfAnotherUsersSeat(_ caller: Caller) throws(VaultError) {
        if case .user(let active) = sessions.activeUser(ofSeat: "seat0"), active != caller.uid {
            throw VaultError(.biometryNotAvailable, underlying: .message(
                "the fingerprint reader serves the user at the machine (the active session of seat0), and that is another user"))
        }
    }

    /// The method of the open window `key` names, if it is still good: its time has not passed, its
    /// session runs, and a window opened by a finger still has that enrolled set. One that ended is
    /// closed and logged.
    private func usableWindow(_ key: ServiceWindows.Key, _ caller: Caller) throws -> Grant.Method? {
        let (window, ended) = windows.window(key)
        if ended { audit.record(caller, "windowClosed", item: key.service, result: "ended (its time, or its terminal session)") }
        guard let window else { return nil }
        if case .login(let session, _) = key.scope, !sessions.isOpen(session) {
            windows.close(key)
            audit.record(caller, "windowClosed", item: key.service, result: "its logind session \(LoginSessions.id(ofPath: session)) is closing or gone")
            return nil
        }
        if case .fingerprint(let opened) = window.method {
            let now = try fingerprintAuthenticator(caller).probe(claiming: false, enrollment: true).enrollment
            guard now != nil, now == opened else {
                windows.close(key)
                audit.record(caller, "windowClosed", item: key.service, result: "the enrolled fingers changed")
                return nil
            }
        }
        return window.method
    }

    /// Closes the windows a signal of logind ends, and logs it for each user: a session's `Lock`, those
    /// opened in that session and outside any; its `SessionRemoved`, those opened in it; anything else
    /// (`PrepareForSleep(true)`), every window of every user.
    func closeWindows(for signal: ScreenLockWatcher.Signal, session: String?) {
        let closed: [UInt32: Int]
        let reason: String
        switch (signal, session) {
        case (.logindLock, let session?):
            closed = windows.close(session: session, orNone: true)
            reason = "logind session \(LoginSessions.id(ofPath: session)) locked"
        case (.logindSessionRemoved, let session?):
            closed = windows.close(session: session, orNone: false)
            reason = "logind session \(LoginSessions.id(ofPath: session)) ended"
        default:
            closed = windows.closeEverything()
            reason = "\(signal.rawValue) signalled"
        }
        for (uid, count) in closed {
            audit.record(uid: uid, "windowClosed", result: "\(reason): \(count) window(s)")
        }
    }

    /// Closes every window of the caller's user; how many were open.
    func lock(_ caller: Caller) -> Int {
        let closed = windows.closeAll(uid: caller.uid)
        audit.record(caller, "windowClosed", result: "lock: \(closed) window(s)")
        return closed
    }

    /// Returns where the check was shown, for the audit.
    func authenticateOwner(_ caller: Caller, reason: String) async throws -> String {
        try Self.refuseExited(caller)
        let authenticator = try fingerprintAuthenticator(caller)
        let sight = try await sight(of: caller, atReader: false)
        try admission.admitCheck(uid: caller.uid)
        return try await shownCheck(caller, sight, asking: .password, for: "the owner's password", reason: reason) {
            try await authenticator.authenticateOwner(prompt: PromptText(reason: reason))
        }.shown
    }

    /// Where a check of `caller` would be seen: on the user's prompter, on the caller's terminal (its
    /// controlling terminal, which the kernel reports), both, or neither.
    struct Sight: Sendable {
        var prompter: Bool
        var terminal: Bool
        var description: String {
            switch (prompter, terminal) {
            case (true, true): "prompter and the caller's terminal"
            case (true, false): "prompter"
            case (false, true): "the caller's terminal"
            case (false, false): "nowhere"
            }
        }
    }

    /// Where a check of `caller` would be seen; refuses one at the reader that nothing would show,
    /// unless the administrator allows it (``ServiceLimits/allowsUnseenChecks``). The terminal is a
    /// claim any program can make by opening one, so it only decides where to show, never who may ask.
    ///
    /// A prompter registers when the service starts (it sees the name's new owner), which may be just
    /// after the call that started it: in the service's first seconds, a check that nothing would show
    /// waits up to 1 s for one.
    private func sight(of caller: Caller, atReader: Bool) async throws(VaultError) -> Sight {
        let terminal = (ProcessStat.read(pid: Int32(bitPattern: caller.processID))?.terminal ?? 0) != 0
        var sight = Sight(prompter: prompters.prompter(uid: caller.uid) != nil, terminal: terminal)
        if atReader, !sight.prompter, !sight.terminal, ContinuousClock.now - started < .seconds(3) {
            let deadline = ContinuousClock.now + .seconds(1)
            while !sight.prompter, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
                sight.prompter = prompters.prompter(uid: caller.uid) != nil
            }
        }
        if atReader, !sight.prompter, !sight.terminal, !limits.allowsUnseenChecks {
            throw VaultError(.interactionNotAllowed, underlying: .message(
                "nothing would show this fingerprint check: run `biometrics-vault prompter` in your desktop session, or ask from a terminal (Docs/VaultService.md, \"Where prompts appear\")"))
        }
        return sight
    }

    /// Runs `check` shown on the user's prompter (if it has one) for as long as it runs: what asks (the
    /// caller's program and its parents, as the kernel names them), for what, how to answer. The prompt
    /// goes when the check ends, however it ends; cancelled there, the check ends as `userCancel`.
    /// The caller's connection is told first (`CheckStarted`), so a program on a terminal shows its own
    /// line for this check and never for a call a window answers. Returns the check's result and where it
    /// was shown, for the audit.
    private func shownCheck<Result: Sendable>(
        _ caller: Caller, _ sight: Sight, asking kind: AuthenticationCheck, for item: String, reason: String,
        _ check: @escaping @Sendable () async throws -> Result
    ) async throws -> (Result, shown: String) {
        prompters.tell(caller.connection, .checkStarted(kind, reason: reason))
        let work = Task { try await check() }
        var shown = sight
        let prompt = sight.prompter
            ? prompters.show(
                uid: caller.uid, summary: Self.summary(kind),
                body: Self.promptBody(asker: AuditLog.describe(pid: caller.processID), pid: caller.processID, item: item, reason: reason),
                cancel: { work.cancel() })
            : nil
        shown.prompter = prompt != nil
        do {
            let result = try await withTaskCancellationHandler { try await work.value } onCancel: { work.cancel() }
            if let prompt { prompters.withdraw(prompt, outcome: "answered") }
            return (result, shown.description)
        } catch {
            if let prompt, prompters.withdraw(prompt, outcome: "ended"), Task.isCancelled == false {
                throw VaultError(.userCancel, underlying: .message("cancelled on the prompt"))
            }
            throw error
        }
    }

    /// A prompt's summary: how to answer.
    static func summary(_ check: AuthenticationCheck) -> String {
        switch check {
        case .finger: "Touch the fingerprint reader"
        case .password: "Enter your password"
        }
    }

    /// A prompt's text, plain (the prompter escapes it for a server that reads markup).
    static func promptBody(asker: String, pid: UInt32, item: String, reason: String) -> String {
        var body = "Asked by pid \(pid): \(asker)\nFor: \(item)"
        if !reason.isEmpty { body += "\nIts reason: \(reason)" }
        return body
    }

    func read(_ caller: Caller, service: String, key: String, token: [UInt8]) throws -> StoredItem? {
        let id = try Self.itemID(service: service, key: key)
        let grant = try grants.grant(token, connection: caller.connection, uid: caller.uid)
        guard let item = try store(caller).read(id, authorization: nil) else { return nil }
        guard item.header.protection != .none else { return item }
        guard let grant else { return StoredItem(header: item.header, payload: nil) }
        try grant.check(item.header, service: service)
        return item
    }

    /// A conditional write; a protected item (the one stored, or the one written) needs a grant that
    /// releases it. The stored header checked is the one the store's own conditional write then expects,
    /// so a concurrent writer makes this try again instead of slipping under the check.
    func write(
        _ caller: Caller, service: String, key: String, header: String, payload: SecretBytes, condition: WriteCondition,
        token: [UInt8]
    ) throws {
        let id = try Self.itemID(service: service, key: key)
        let header = try ItemHeader(attributeValue: header)
        guard payload.count <= VaultLimits.maximumCredentialsSize else {
            throw VaultError(.credentialsTooLarge, underlying: .message("more than \(VaultLimits.maximumCredentialsSize) bytes"))
        }
        let grant = try grants.grant(token, connection: caller.connection, uid: caller.uid)
        func authorize(_ header: ItemHeader) throws(VaultError) {
            guard header.protection != .none else { return }
            guard let grant else {
                throw VaultError(.vaultLocked, underlying: .message("writing a protected item needs an authentication first"))
            }
            try grant.check(header, service: service)
        }
        try authorize(header)
        let store = try store(caller)
        let item = StoredItem(header: header, payload: payload)
        for _ in 0..<8 {
            let current = try store.read(id, authorization: nil)?.header
            try condition.check(current)
            if let current { try authorize(current) }
            do {
                try writeWithinLimits(caller, item, for: id, replacing: current)
                return
            } catch let error as VaultError where [.invalidVault, .itemNotFound, .biometryChanged].contains(error.code) {
                continue  // another writer changed the item between the check and the write
            }
        }
        throw VaultError(.invalidVault, underlying: .message("the item kept changing under concurrent writers"))
    }

    /// Writes `item` if the stored one still has the header `current` (`nil`: none is stored), within
    /// the user's limits: counted and written under the user's lock.
    func writeWithinLimits(_ caller: Caller, _ item: StoredItem, for id: SecretItemID, replacing current: ItemHeader?) throws {
        let lock = writing.withLock { locks in
            if let lock = locks[caller.uid] { return lock }
            let lock = LockedValue(())
            locks[caller.uid] = lock
            return lock
        }
        let store = try store(caller)
        try lock.withLock { _ in
            try limits.check(
                ServiceLimits.usage(of: usersDirectory + "/\(caller.uid)"), adding: current == nil, payload: item.payload?.count ?? 0)
            try store.write(item, for: id, if: current.map { .matching($0) } ?? .absent, authorization: nil)
        }
    }

    func delete(_ caller: Caller, service: String, key: String) throws {
        try store(caller).delete(try Self.itemID(service: service, key: key))
    }

    func listing(_ caller: Caller, service: String) throws -> KeyListing {
        try Self.refuseSSHKeys(service)
        return try store(caller).listing(service: service)
    }

    /// An item of the methods `Read`, `Write` and `Delete`.
    private static func itemID(service: String, key: String) throws(VaultError) -> SecretItemID {
        try refuseSSHKeys(service)
        return try SecretItemID(service: service, key: key)
    }

    /// The items' methods never reach the SSH keys, which the service only signs with
    /// (``SSHKeyRecord/service``).
    private static func refuseSSHKeys(_ service: String) throws(VaultError) {
        guard service != SSHKeyRecord.service else {
            throw VaultError(.invalidKey, underlying: .message(
                "the service \(service) holds SSH keys, which no method reads or writes as items"))
        }
    }

    // MARK: Private

    /// Whether polkit can ask for the password. Once polkitd has answered that the action is installed,
    /// that answer stands for the life of this process (the package that installs the action also
    /// installs the service); anything else is asked again on the next call.
    private func ownerStatus() -> PolkitStatus {
        if ownerReady.withLock({ $0 }) { return .ready }
        let status = PolkitOwnerAuthenticator.probe(actionID: VaultServiceInterface.ownerAction)
        if status == .ready { ownerReady.withLock { $0 = true } }
        return status
    }

    private var usersDirectory: String { stateDirectory + "/users" }

    /// The caller's own store: `users/<uid>` (0700, the service's user), its key in `master.key` there,
    /// readable by the service's user alone, and sealed to the TPM when the service can use one.
    func store(_ caller: Caller) throws -> EncryptedFileStore {
        // Opened under the lock: two first calls of one user never both seal its key.
        try stores.withLock { stores in
            if let store = stores[caller.uid] { return store }
            if mkdir(usersDirectory, 0o700) != 0 && errno != EEXIST {
                throw VaultError(.storeUnavailable, underlying: .file(operation: "create", path: usersDirectory, errno: errno))
            }
            let directory = URL(fileURLWithPath: usersDirectory + "/\(caller.uid)", isDirectory: true)
            let store = try EncryptedFileStore(directory: directory, keySource: try Self.keySource(directory, tpm: tpm))
            stores[caller.uid] = store
            return store
        }
    }

    /// The key source of the store in `directory`. A TPM the service can use seals a new store's key, and
    /// the key of a store made while there was none (moved from a key file atomically: the old file or
    /// the new one, never neither). Without a TPM the key file stays; a sealed key needs its TPM.
    static func keySource(_ directory: URL, tpm: TPMConfiguration) throws -> EncryptedFileStore.KeySource {
        let protection = try EncryptedFileStore.keyProtection(directory: directory)
        let sealer = TPMSealer(tpm: tpm)
        switch protection {
        case .sealed(TPMSealer.mechanism, usesPIN: false)?:
            return .sealed(sealer)
        case .sealed?, .passphrase?:
            throw VaultError(.storeUnavailable, underlying: .message("the key of \(directory.path) is protected in a way the service never uses"))
        case nil, .keyFile?:
            guard (try? TPMStatus.read(tpm)) != nil else { return .keyFile }
            if protection == nil {
                try EncryptedFileStore.createKey(directory: directory, source: .sealed(sealer))
            } else {
                try EncryptedFileStore.changeKeySource(directory: directory, from: .keyFile, to: .sealed(sealer))
            }
            return .sealed(sealer)
        }
    }

    /// The caller's fingerprints and password: fprintd claimed for the caller's user name, polkit asked
    /// about the caller's connection, failures counted in `lockout/` (one file per user name).
    func fingerprintAuthenticator(_ caller: Caller) throws(VaultError) -> FingerprintAuthenticator {
        guard let user = Self.userName(caller.uid) else {
            throw VaultError(.biometryNotAvailable, underlying: .message("uid \(caller.uid) has no user name"))
        }
        let owner = PolkitOwnerAuthenticator(
            actionID: VaultServiceInterface.ownerAction, timeout: .seconds(120), subject: try Self.polkitSubject(caller))
        return FingerprintAuthenticator(
            owner: owner, stateDirectory: URL(fileURLWithPath: stateDirectory + "/lockout", isDirectory: true), user: user)
    }

    /// The caller's process as polkit's subject: the attested process, or the pid the bus reported, if
    /// that process is still the caller's (same uid), with its start time, so that polkit asks that process's agent for that uid's
    /// password and a pid reused since by another process is not the same subject.
    static func polkitSubject(_ caller: Caller) throws(VaultError) -> PolkitSubject {
        var status = stat()
        let pid = caller.processID
        guard stat("/proc/\(pid)", &status) == 0, status.st_uid == caller.uid,
            let startTime = PolkitAuthority.processStartTime(of: "\(pid)")
        else {
            throw VaultError(.interactionNotAllowed, underlying: .message("the calling process is gone"))
        }
        return .process(pid: pid, startTime: startTime, uid: caller.uid, program: AuditLog.describe(pid: caller.processID))
    }

    /// A connection whose attesting process has exited is not answered: another process holds it now.
    static func refuseExited(_ caller: Caller) throws(VaultError) {
        if let process = caller.process, !process.isAlive {
            throw VaultError(.interactionNotAllowed, underlying: .message("the process that attested this connection has exited"))
        }
    }

    static func userName(_ uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
#endif
