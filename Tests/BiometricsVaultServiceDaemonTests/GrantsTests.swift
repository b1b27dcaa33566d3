#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultCore
import Testing

/// What the service issues after a check, in memory only: which items a grant releases (its method
/// against the item's policy, its window's item service), and that a token is its caller's alone.
@Suite struct GrantsTests {
    static let enrolled = EnrollmentFingerprint(hashing: Array("user;reader;left-index".utf8))
    static let reEnrolled = EnrollmentFingerprint(hashing: Array("user;reader;left-index,right-index".utf8))

    static func header(_ policy: ProtectionPolicy?, enrollment: EnrollmentFingerprint? = nil) -> ItemHeader {
        ItemHeader(protection: policy.map(ItemProtection.protected) ?? .none, enrollment: enrollment)
    }

    static func grant(_ method: Grant.Method, service: String? = nil) -> Grant {
        Grant(connection: ":1.5", uid: 1000, method: method, expires: .now + Grants.lifetime, service: service)
    }

    static let bound = header(.biometryCurrentSet, enrollment: enrolled)

    /// Every policy against every method: which the grant releases, and why not (`nil`: released).
    static let policyTable: [(header: ItemHeader, method: Grant.Method, refusal: VaultError.Code?)] = [
        // No protection: any grant, whatever its method.
        (header(nil), .fingerprint(enrolled), nil),
        (header(nil), .fingerprint(nil), nil),
        (header(nil), .password, nil),
        // Bound to the enrolled set: a finger of that same set only.
        (bound, .fingerprint(enrolled), nil),
        (bound, .fingerprint(reEnrolled), .biometryChanged),
        (bound, .fingerprint(nil), .biometryChanged),
        (bound, .password, .authenticationFailed),
        // Bound to the enrolled set, but the item names none: no finger matches it.
        (header(.biometryCurrentSet), .fingerprint(enrolled), .biometryChanged),
        (header(.biometryCurrentSet), .fingerprint(nil), .biometryChanged),
        // Any finger; never the password.
        (header(.biometryAny), .fingerprint(enrolled), nil),
        (header(.biometryAny), .fingerprint(reEnrolled), nil),
        (header(.biometryAny), .fingerprint(nil), nil),
        (header(.biometryAny), .password, .authenticationFailed),
        // A finger or the password.
        (header(.userPresence), .fingerprint(enrolled), nil),
        (header(.userPresence), .fingerprint(nil), nil),
        (header(.userPresence), .password, nil),
        // The password only.
        (header(.devicePasscode), .password, nil),
        (header(.devicePasscode), .fingerprint(enrolled), .authenticationFailed),
        (header(.devicePasscode), .fingerprint(nil), .authenticationFailed),
    ]

    /// A grant releases an item exactly when its method satisfies the item's policy: a bound item only
    /// for a finger of the set it is bound to (`biometryChanged` otherwise), a finger-only item never
    /// for the password, a password-only item never for a finger (`authenticationFailed`).
    @Test(arguments: policyTable)
    func aGrantReleasesWhatItsMethodSatisfies(header: ItemHeader, method: Grant.Method, refusal: VaultError.Code?) {
        // The same answer whether the grant followed a prompt or a window of this very service.
        for service in [nil, "svc"] as [String?] {
            do {
                try Self.grant(method, service: service).check(header, service: "svc")
                #expect(refusal == nil, "released, expected \(refusal.map(\.name) ?? "")")
            } catch {
                #expect(error.code == refusal, "\(error)")
            }
        }
    }

    /// A grant given inside a window of one item service releases nothing of another, not even an
    /// unprotected item (`vaultLocked`), whatever its method.
    @Test(arguments: [
        header(nil), bound, header(.biometryAny), header(.userPresence), header(.devicePasscode),
    ])
    func aWindowGrantOfAnotherServiceReleasesNothing(header: ItemHeader) {
        for method: Grant.Method in [.fingerprint(Self.enrolled), .password] {
            let error = #expect(throws: VaultError.vaultLocked) {
                try Self.grant(method, service: "ssh-key:work").check(header, service: "ssh-key:home")
            }
            #expect(error?.underlying?.description.contains("unlock window of another service") == true)
        }
    }

    /// A token is 32 random bytes, a new one each time, and names its grant: its connection, uid, method
    /// and window service, for at most ``Grants/lifetime``.
    @Test func anIssuedTokenNamesItsGrant() throws {
        let grants = Grants()
        let before = ContinuousClock.now
        let token = grants.issue(connection: ":1.5", uid: 1000, method: .fingerprint(Self.enrolled), service: "svc")
        let other = grants.issue(connection: ":1.5", uid: 1000, method: .password)
        #expect(token.count == Grants.tokenSize && Grants.tokenSize == 32)
        #expect(token != other)
        let grant = try #require(try grants.grant(token, connection: ":1.5", uid: 1000))
        #expect(grant.connection == ":1.5" && grant.uid == 1000)
        #expect(grant.method == .fingerprint(Self.enrolled))
        #expect(grant.service == "svc")
        #expect(grant.expires > before + Grants.lifetime - .seconds(60) && grant.expires <= .now + Grants.lifetime)
        #expect(try grants.grant(other, connection: ":1.5", uid: 1000)?.method == .password)
        #expect(try grants.grant(other, connection: ":1.5", uid: 1000)?.service == nil)
    }

    /// A token works only for the connection and uid it was issued to; any other caller, and a token
    /// never issued, is told the authentication ended (`vaultLocked`), never given the grant.
    @Test(arguments: [
        (":1.6", 1000 as UInt32),  // another connection of the same user
        (":1.5", 1001 as UInt32),  // the same name with another uid
        (":1.6", 1001 as UInt32),
    ])
    func aTokenWorksOnlyForItsConnectionAndUid(connection: String, uid: UInt32) throws {
        let grants = Grants()
        let token = grants.issue(connection: ":1.5", uid: 1000, method: .password)
        #expect(throws: VaultError.vaultLocked) { try grants.grant(token, connection: connection, uid: uid) }
        // Asking did not use it up for its own caller.
        #expect(try grants.grant(token, connection: ":1.5", uid: 1000) != nil)
    }

    /// A token never issued, or one a byte off, is `vaultLocked`; an empty one is no grant at all (`nil`:
    /// the call goes on as an unauthenticated one).
    @Test func anUnknownTokenIsLockedAndAnEmptyOneIsNone() throws {
        let grants = Grants()
        #expect(try grants.grant([], connection: ":1.5", uid: 1000) == nil)
        var token = grants.issue(connection: ":1.5", uid: 1000, method: .password)
        #expect(try grants.grant([], connection: ":1.5", uid: 1000) == nil)
        #expect(throws: VaultError.vaultLocked) { try grants.grant([UInt8](repeating: 0, count: 32), connection: ":1.5", uid: 1000) }
        token[0] ^= 1
        #expect(throws: VaultError.vaultLocked) { try grants.grant(token, connection: ":1.5", uid: 1000) }
        #expect(throws: VaultError.vaultLocked) { try grants.grant(Array(token.prefix(16)), connection: ":1.5", uid: 1000) }
    }

    /// Revoking ends a grant only for the connection that holds it: another connection naming the token
    /// ends nothing.
    @Test func onlyItsOwnConnectionRevokesAGrant() throws {
        let grants = Grants()
        let token = grants.issue(connection: ":1.5", uid: 1000, method: .password)
        grants.revoke(token, connection: ":1.6")
        #expect(try grants.grant(token, connection: ":1.5", uid: 1000) != nil)
        #expect(!grants.isEmpty)
        grants.revoke(token, connection: ":1.5")
        #expect(throws: VaultError.vaultLocked) { try grants.grant(token, connection: ":1.5", uid: 1000) }
        #expect(grants.isEmpty)
    }

    /// A connection that leaves the bus takes all its grants with it, and no other connection's, even
    /// another connection of the same user.
    @Test func revokeAllEndsOnlyThatConnectionsGrants() throws {
        let grants = Grants()
        #expect(grants.isEmpty)
        let leaving = [grants.issue(connection: ":1.5", uid: 1000, method: .password),
                       grants.issue(connection: ":1.5", uid: 1000, method: .fingerprint(nil), service: "svc")]
        let staying = grants.issue(connection: ":1.6", uid: 1000, method: .password)
        let otherUser = grants.issue(connection: ":1.7", uid: 1001, method: .password)
        grants.revokeAll(connection: ":1.5")
        for token in leaving {
            #expect(throws: VaultError.vaultLocked) { try grants.grant(token, connection: ":1.5", uid: 1000) }
        }
        #expect(try grants.grant(staying, connection: ":1.6", uid: 1000) != nil)
        #expect(try grants.grant(otherUser, connection: ":1.7", uid: 1001) != nil)
        #expect(!grants.isEmpty)
        grants.revokeAll(connection: ":1.6")
        grants.revokeAll(connection: ":1.7")
        #expect(grants.isEmpty)
    }
}
#endif
