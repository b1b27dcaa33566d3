#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultCore
import Testing

/// Each user's calls in progress and checks per minute, held to their limits apart from every other
/// user's (what ServiceLimitsTests does not already cover).
@Suite struct CallAdmissionTests {
    /// One user with every call the limit allows in progress leaves another user the whole limit; the
    /// other user's calls ending frees nothing for the first.
    @Test(arguments: [1, 2, 5])
    func oneUsersCallsNeverTakeAnothersPlaces(limit: Int) throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumCalls: limit))
        for _ in 0..<limit { try admission.begin(uid: 1000) }
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
        for _ in 0..<limit { try admission.begin(uid: 1001) }
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1001) }
        admission.end(uid: 1001)
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
        try admission.begin(uid: 1001)
        let error = #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
        #expect(error?.underlying?.description.contains("\(limit) calls in progress") == true)
    }

    /// Ending more calls than began gives a user no credit: the limit stays the limit.
    @Test func endingCallsThatNeverBeganGivesNoCredit() throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumCalls: 2))
        for _ in 0..<3 { admission.end(uid: 1000) }
        try admission.begin(uid: 1000)
        admission.end(uid: 1000)
        admission.end(uid: 1000)
        try admission.begin(uid: 1000)
        try admission.begin(uid: 1000)
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
    }

    /// A limit of 0 takes no call and starts no check.
    @Test func aLimitOfZeroRefusesEverything() {
        let admission = CallAdmission(limits: ServiceLimits(maximumCalls: 0, maximumPromptsPerMinute: 0))
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1000) }
    }

    /// One user's checks at their rate leave another user the whole rate in that same minute, and the
    /// other user's checks take nothing from the first's.
    @Test(arguments: [1, 3, 60])
    func oneUsersChecksNeverTakeAnothersRate(rate: Int) throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumPromptsPerMinute: rate))
        let start = ContinuousClock.now
        for index in 0..<rate { try admission.admitCheck(uid: 1000, now: start + .milliseconds(index)) }
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1000, now: start + .seconds(1)) }
        for index in 0..<rate { try admission.admitCheck(uid: 1001, now: start + .seconds(1) + .milliseconds(index)) }
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1001, now: start + .seconds(2)) }
        // The first user's minute ends first; the second's is still full.
        try admission.admitCheck(uid: 1000, now: start + .seconds(60) + .milliseconds(rate))
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1001, now: start + .seconds(60) + .milliseconds(rate)) }
    }

    /// A refused check is not counted: asking again and again while refused does not push back when
    /// the user may check again.
    @Test func aRefusedCheckIsNotCounted() throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumPromptsPerMinute: 2))
        let start = ContinuousClock.now
        try admission.admitCheck(uid: 1000, now: start)
        try admission.admitCheck(uid: 1000, now: start + .seconds(30))
        for second in [40, 50, 59] {
            #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1000, now: start + .seconds(second)) }
        }
        try admission.admitCheck(uid: 1000, now: start + .seconds(60))
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1000, now: start + .seconds(61)) }
        try admission.admitCheck(uid: 1000, now: start + .seconds(90))
    }

    /// Calls in progress and checks are counted apart: a user at their calls limit may still start a
    /// check, and one at their checks limit may still make a call.
    @Test func callsAndChecksAreCountedApart() throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumCalls: 1, maximumPromptsPerMinute: 1))
        try admission.begin(uid: 1000)
        try admission.admitCheck(uid: 1000)
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1000) }
        admission.end(uid: 1000)
        try admission.begin(uid: 1000)
    }
}
#endif
