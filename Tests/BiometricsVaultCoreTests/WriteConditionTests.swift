import BiometricsVaultCore
import Testing

/// The conditional write's one check, shared by every store: which stored header satisfies which
/// condition, and which error a mismatch reports.
@Suite struct WriteConditionTests {
    static let plain = ItemHeader(protection: .none)
    static let bound = ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: EnrollmentFingerprint("set-a"))
    static let rebound = ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: EnrollmentFingerprint("set-b"))
    static let any = ItemHeader(protection: .protected(.biometryAny))
    static var legacyPlain: ItemHeader {
        var header = ItemHeader(protection: .none)
        header.formatVersion = 0
        return header
    }

    /// (condition, stored header, nil when satisfied or the error code)
    static let table: [(WriteCondition, ItemHeader?, VaultError.Code?)] = [
        (.anything, nil, nil),
        (.anything, bound, nil),
        (.absent, nil, nil),
        (.absent, plain, .invalidVault),
        (.absent, bound, .invalidVault),
        (.plain, plain, nil),
        (.plain, legacyPlain, nil),
        (.plain, nil, .itemNotFound),
        (.plain, bound, .invalidVault),
        (.protected(.biometryCurrentSet, enrollment: EnrollmentFingerprint("set-a")), bound, nil),
        (.protected(.biometryCurrentSet, enrollment: EnrollmentFingerprint("set-a")), rebound, .biometryChanged),
        (.protected(.biometryCurrentSet, enrollment: EnrollmentFingerprint("set-a")), plain, .invalidVault),
        (.protected(.biometryCurrentSet, enrollment: EnrollmentFingerprint("set-a")), any, .invalidVault),
        (.protected(.biometryCurrentSet, enrollment: EnrollmentFingerprint("set-a")), nil, .itemNotFound),
        // Policies that bind no enrollment ignore the authorization's.
        (.protected(.biometryAny, enrollment: EnrollmentFingerprint("set-a")), any, nil),
        (.replacing(nil), nil, nil),
        (.replacing(rebound), rebound, nil),
        (.replacing(rebound), bound, .invalidVault),
        (.replacing(rebound), nil, nil),
        (.replacing(rebound), plain, .invalidVault),
    ]

    @Test(arguments: table.indices)
    func condition(_ row: Int) {
        let (condition, stored, expected) = Self.table[row]
        #expect(condition.isSatisfied(by: stored) == (expected == nil))
        do {
            try condition.check(stored)
            #expect(expected == nil)
        } catch {
            #expect(error.code == expected)
        }
    }
}
