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
            #expect(error.code == .storeUnavailable)
            #expect(error.underlying?.description.contains("at their limit") == true)
        }
    }
}
#endif
