#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import Glibc

/// The vault service's D-Bus interface, version 1 (Docs/VaultService.md): its bus name, object, methods,
/// and the one mapping between its D-Bus error names and `VaultError` codes, used by both ends.
package enum VaultServiceInterface {
    /// The well-known name on the system bus.
    package static let busName = "io.github.biometricsvault.Vault1"
    package static let objectPath = "/io/github/biometricsvault/Vault1"
    /// The interface; a later incompatible version gets a new name (`Vault2`), so a client and a service
    /// of different major versions never misread each other's calls.
    package static let interface = "io.github.biometricsvault.Vault1"
    /// D-Bus error names are this prefix followed by a `VaultError.Code` name (`...Error.biometryLockout`).
    package static let errorPrefix = "io.github.biometricsvault.Vault1.Error."
    /// The minor version of the interface, in ``Status``'s `version`.
    package static let minorVersion: UInt32 = 5

    /// How long a call that asks no one waits for the service's reply: the bus's own default (what
    /// libsecret's calls wait), since the service every user shares may be busy with other users' calls.
    package static let callTimeout: Duration = .seconds(25)

    /// The service's own socket, where a client learns a token that names it as the kernel saw it connect
    /// (`SO_PEERPIDFD`), which ``Attest`` then binds to the client's bus connection.
    package static let attestationSocket = "/run/biometrics-vault/peer.socket"
    /// The length of that token.
    package static let attestationTokenLength = 32

    /// The polkit action whose `auth_self` check asks the caller's own agent for the caller's password.
    package static let ownerAction = "io.github.biometricsvault.vault-service.authenticate-owner"

    /// The interface's introspection, made from ``VaultServiceMethod``: what the bus checks each call's
    /// argument types against before the service sees it.
    package static let introspectionXML = DBusInterfaceDescription.introspectionXML([description])

    /// The interface as ``VaultServiceMethod`` and ``VaultServiceSignal`` describe it.
    package static let description = DBusInterfaceDescription(
        interface,
        methods: VaultServiceMethod.allCases.map { .init($0.rawValue, inputs: $0.inputs, outputs: $0.outputs) },
        signals: VaultServiceSignal.allCases.map { .init($0.rawValue, arguments: $0.arguments) })

    package static func method(_ method: VaultServiceMethod) -> DBusMethod {
        DBusMethod(destination: busName, path: objectPath, interface: interface, member: method.rawValue)
    }

    /// The D-Bus error name that carries `code`.
    package static func errorName(_ code: VaultError.Code) -> String { errorPrefix + code.name }

    /// The `VaultError` a failed call to the service means: the service's own error names carry their
    /// code; a service that is not there (not installed, not running and not activatable) or does not
    /// answer is `storeUnavailable`.
    package static func vaultError(_ failure: DBusFailure) -> VaultError {
        if failure.isRemote, failure.name.hasPrefix(errorPrefix) {
            let name = failure.name.dropFirst(errorPrefix.count)
            if let code = VaultError.Code.all.first(where: { $0.name == name }) {
                return VaultError(code, underlying: .message(failure.message))
            }
        }
        let why: String
        switch failure.kind {
        case .serviceMissing: why = "the vault service is not installed or not running (\(failure.name))"
        case .timedOut: why = "the vault service did not answer in time"
        case .accessDenied: why = "the system bus refused the call to the vault service"
        case .cancelled: return VaultError(.systemCancel, underlying: failure.underlying)
        default: why = "the vault service failed (\(failure.name): \(failure.message))"
        }
        return VaultError(.storeUnavailable, underlying: .message(why))
    }

    /// How a ``WriteCondition`` travels: a kind and, for the kinds that have one, the expected header.
    package static func encode(_ condition: WriteCondition) -> (kind: String, expected: String) {
        switch condition {
        case .anything: ("anything", "")
        case .absent: ("absent", "")
        case .matching(let header): ("matching", header.attributeValue)
        case .absentOr(let header): ("absentOr", header.attributeValue)
        }
    }

    package static func decodeCondition(kind: String, expected: String) throws(VaultError) -> WriteCondition {
        switch kind {
        case "anything": return .anything
        case "absent": return .absent
        case "matching": return .matching(try ItemHeader(attributeValue: expected))
        case "absentOr": return .absentOr(try ItemHeader(attributeValue: expected))
        default: throw VaultError(.invalidVault, underlying: .message("unknown write condition"))
        }
    }
}

/// What the service's `Status` says about the caller's biometrics and password, without prompting.
package struct VaultServiceStatus: Sendable, Equatable {
    /// `available`, `notEnrolled`, `lockedOut`, `noReader`, `noFprintd`, `permissionDenied`, `deviceBusy`.
    package var biometry: String
    /// The caller's enrolled set (when readable).
    package var enrollment: EnrollmentFingerprint?
    package var failedAttempts: Int
    /// Whether polkit can ask the caller's password (`ready`), or why not.
    package var owner: String
    package var version: String
    /// The open windows of the caller's terminal session.
    package var windows: [Window]
    /// The calling process as the service sees it (its name, `argv[0]` and parents), for a prompt.
    package var caller: String = ""

    /// An open unlock window: the item service and policy it is for, and the seconds it has left.
    package struct Window: Sendable, Equatable {
        package var service: String
        package var policy: String
        package var seconds: Int

        package init(service: String, policy: String, seconds: Int) {
            self.service = service
            self.policy = policy
            self.seconds = seconds
        }

        /// `seconds policy service` (a service name may hold spaces; it goes last).
        var text: String { "\(seconds) \(policy) \(service)" }

        init?(text: String) {
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let seconds = Int(parts[0]) else { return nil }
            self.init(service: String(parts[2]), policy: String(parts[1]), seconds: seconds)
        }
    }

    package init(
        biometry: String, enrollment: EnrollmentFingerprint?, failedAttempts: Int, owner: String, version: String, windows: [Window] = []
    ) {
        self.biometry = biometry
        self.enrollment = enrollment
        self.failedAttempts = failedAttempts
        self.owner = owner
        self.version = version
        self.windows = windows
    }

    package init(_ value: DBusValue) {
        var status = VaultServiceStatus(biometry: "noFprintd", enrollment: nil, failedAttempts: 0, owner: "noPolkit", version: "")
        for (key, entry) in value.properties ?? [] {
            switch key {
            case "windows": status.windows = (entry.strings ?? []).compactMap { Window(text: $0) }
            case "caller": status.caller = entry.string ?? ""
            case "biometry": status.biometry = entry.string ?? status.biometry
            case "enrollment": status.enrollment = entry.string.flatMap { EnrollmentFingerprint($0) }
            case "failedAttempts": status.failedAttempts = Int(entry.uint32 ?? 0)
            case "owner": status.owner = entry.string ?? status.owner
            case "version": status.version = entry.string ?? ""
            default: break
            }
        }
        self = status
    }

    package var argument: DBusArgument {
        var entries: [(String, DBusArgument)] = [
            ("biometry", .string(biometry)), ("failedAttempts", .uint32(UInt32(clamping: failedAttempts))),
            ("owner", .string(owner)), ("version", .string(version)),
        ]
        if let enrollment { entries.append(("enrollment", .string(enrollment.value))) }
        entries.append(("windows", .strings(windows.map(\.text))))
        entries.append(("caller", .string(caller)))
        return .tuple([.vardict(entries)])
    }
}

extension Array where Element == UInt8 {
    /// Zeroes bytes that held a secret on their way through (`explicit_bzero`: not optimised away).
    package mutating func zeroize() {
        withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }
}
#endif
