#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultCore
import Testing

@Suite struct ServiceLimitsTests {
    @Test(arguments: [
        ("", ServiceLimits(), 0),
        ("max-items = 5\n# a comment\n\nmax-bytes=1024  # inline\n", ServiceLimits(maximumItems: 5, maximumBytes: 1024), 0),
        ("max-items = five\nmax-files = 3\nmax-bytes\nmax-bytes = -1\n", ServiceLimits(), 4),
        ("max-items = 1\nmax-items = 2\n", ServiceLimits(maximumItems: 2), 0),
        ("max-calls = 4\nmax-prompts-per-minute = 6\n", ServiceLimits(maximumCalls: 4, maximumPromptsPerMinute: 6), 0),
    ])
    func theAdministratorsFileSetsTheLimitsAndBadLinesAreIgnored(text: String, limits: ServiceLimits, notices: Int) {
        let parsed = ServiceLimits.parse(text)
        #expect(parsed.limits == limits)
        #expect(parsed.notices.count == notices, "\(parsed.notices)")
    }

    @Test(arguments: [
        // usage, a new item, payload, refused
        ((items: 1, bytes: 100), true, 10, false),
        ((items: 2, bytes: 100), true, 10, true),
        ((items: 2, bytes: 100), false, 10, false),
        ((items: 0, bytes: 995), true, 10, true),
        ((items: 1, bytes: 1000), false, 10, false),
        ((items: 1, bytes: 1001), false, 10, true),
    ] as [((items: Int, bytes: Int), Bool, Int, Bool)])
    func aWritePastALimitIsRefused(usage: (items: Int, bytes: Int), adding: Bool, payload: Int, refused: Bool) {
        let limits = ServiceLimits(maximumItems: 2, maximumBytes: 1000)
        do {
            try limits.check(usage, adding: adding, payload: payload)
            #expect(!refused)
        } catch {
            #expect(refused)
            #expect(error.code == .storeFull)
            #expect(error.underlying?.description.contains("at their limit") == true)
        }
    }

    /// A user's calls past `max-calls` are refused at once while that many run, and taken again when
    /// one ends; another user's are counted apart.
    @Test func callsPastTheLimitAreRefusedUntilOneEnds() throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumCalls: 2))
        try admission.begin(uid: 1000)
        try admission.begin(uid: 1000)
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
        try admission.begin(uid: 1001)
        admission.end(uid: 1000)
        try admission.begin(uid: 1000)
        #expect(throws: VaultError.storeUnavailable) { try admission.begin(uid: 1000) }
    }

    /// Checks past `max-prompts-per-minute` in any 60 s are refused (`interactionNotAllowed`) until
    /// the oldest is a minute old; another user's are counted apart.
    @Test func checksPastTheRateAreRefusedForAMinute() throws {
        let admission = CallAdmission(limits: ServiceLimits(maximumPromptsPerMinute: 3))
        let start = ContinuousClock.now
        for second in [0, 10, 20] { try admission.admitCheck(uid: 1000, now: start + .seconds(second)) }
        do {
            try admission.admitCheck(uid: 1000, now: start + .seconds(59))
            Issue.record("a fourth check within the minute was admitted")
        } catch {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.underlying?.description.contains("3 checks in the last minute") == true, "\(error)")
        }
        try admission.admitCheck(uid: 1001, now: start + .seconds(59))
        try admission.admitCheck(uid: 1000, now: start + .seconds(60))
        #expect(throws: VaultError.interactionNotAllowed) { try admission.admitCheck(uid: 1000, now: start + .seconds(61)) }
    }
}
#endif
