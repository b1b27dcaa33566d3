#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultCore
import Foundation
import Glibc
import Testing

/// The service's unlock windows in memory, without logind: opened, found and closed by their key (uid,
/// scope, item service, policy); their time clamped and their number per user bounded; closed by
/// session, by user or all at once; and one user's never another's.
@Suite struct ServiceWindowsTests {
    static let seat = "/org/freedesktop/login1/session/_31"
    static let otherSeat = "/org/freedesktop/login1/session/_32"
    static let desktop = ServiceWindows.Scope.login(session: seat, terminal: nil)
    static let otherDesktop = ServiceWindows.Scope.login(session: otherSeat, terminal: nil)
    static let enrolled = EnrollmentFingerprint(hashing: Array("user;reader;left-index".utf8))

    static func key(
        uid: UInt32 = 1000, scope: ServiceWindows.Scope = desktop, service: String = "svc", policy: ProtectionPolicy = .biometryAny
    ) -> ServiceWindows.Key {
        ServiceWindows.Key(uid: uid, scope: scope, service: service, policy: policy)
    }

    /// This process's start time (field 22 of /proc/self/stat, after the command name's last `)`).
    static func ownStartTime() throws -> UInt64 {
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let close = try #require(stat.lastIndex(of: ")"))
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return try #require(UInt64(fields[19]))
    }

    /// Which part of the key a lookup changes.
    enum Difference: CaseIterable {
        case uid, scope, service, policy

        func applied(to key: ServiceWindows.Key) -> ServiceWindows.Key {
            switch self {
            case .uid: ServiceWindowsTests.key(uid: key.uid + 1, scope: key.scope, service: key.service, policy: key.policy)
            case .scope: ServiceWindowsTests.key(uid: key.uid, scope: ServiceWindowsTests.otherDesktop, service: key.service, policy: key.policy)
            case .service: ServiceWindowsTests.key(uid: key.uid, scope: key.scope, service: key.service + "2", policy: key.policy)
            case .policy: ServiceWindowsTests.key(uid: key.uid, scope: key.scope, service: key.service, policy: .userPresence)
            }
        }
    }

    /// An open window is found by its whole key, with the method and logind session it was opened
    /// with; a key that differs in any one part (another user, scope, item service or policy) finds
    /// nothing, and does not end it.
    @Test(arguments: Difference.allCases)
    func aWindowIsFoundByItsWholeKeyOnly(difference: Difference) throws {
        let windows = ServiceWindows()
        let key = Self.key()
        #expect(windows.open(key, seconds: 300, method: .fingerprint(Self.enrolled), session: Self.seat))
        let other = windows.window(difference.applied(to: key))
        #expect(other.window == nil && !other.ended)
        let found = windows.window(key)
        #expect(!found.ended)
        let window = try #require(found.window)
        #expect(window.method == .fingerprint(Self.enrolled))
        #expect(window.session == Self.seat)
        #expect(window.expires > .now + .seconds(290) && window.expires <= .now + .seconds(300))
    }

    /// A window never opened is none, and not an ended one; an empty table is empty.
    @Test func noWindowIsNoneAndNotEnded() {
        let windows = ServiceWindows()
        #expect(windows.isEmpty)
        let found = windows.window(Self.key())
        #expect(found.window == nil && !found.ended)
        #expect(windows.open(uid: 1000, scope: Self.desktop).isEmpty)
    }

    /// Closing by key closes that window alone.
    @Test func closingAKeyClosesThatWindowOnly() {
        let windows = ServiceWindows()
        let first = Self.key(service: "a"), second = Self.key(service: "b")
        #expect(windows.open(first, seconds: 300, method: .password, session: nil))
        #expect(windows.open(second, seconds: 300, method: .password, session: nil))
        windows.close(first)
        #expect(windows.window(first).window == nil)
        #expect(windows.window(first).ended == false)
        #expect(windows.window(second).window != nil)
        #expect(!windows.isEmpty)
        windows.close(second)
        #expect(windows.isEmpty)
    }

    /// A window whose time has passed is reported ended once, then dropped; it is not listed, and keeps
    /// the service no longer up (`isEmpty`).
    @Test func aWindowWhoseTimeHasPassedEndsOnce() {
        let windows = ServiceWindows()
        let key = Self.key()
        #expect(windows.open(key, seconds: 0, method: .password, session: Self.seat))
        #expect(windows.open(uid: 1000, scope: Self.desktop).isEmpty)
        let first = windows.window(key)
        #expect(first.window == nil && first.ended)
        let second = windows.window(key)
        #expect(second.window == nil && !second.ended)
        #expect(windows.open(key, seconds: -5, method: .password, session: nil))
        #expect(windows.isEmpty)
    }

    /// A process tree's window lasts while its first process runs: the tree of this process (its pid and
    /// start time) is current; the same pid with another start time (a reused pid) is ended at once.
    @Test func aProcessTreesWindowEndsWithItsProcess() throws {
        let windows = ServiceWindows()
        let start = try Self.ownStartTime()
        let running = Self.key(scope: .processTree(pid: getpid(), startTime: start))
        let reused = Self.key(scope: .processTree(pid: getpid(), startTime: start + 1))
        #expect(windows.open(reused, seconds: 300, method: .password, session: nil))
        #expect(windows.isEmpty)
        #expect(windows.open(reused, seconds: 300, method: .password, session: nil))
        let ended = windows.window(reused)
        #expect(ended.window == nil && ended.ended)
        #expect(windows.open(running, seconds: 300, method: .password, session: nil))
        #expect(windows.window(running).window != nil)
        #expect(!windows.isEmpty)
        #expect(windows.open(uid: 1000, scope: .processTree(pid: getpid(), startTime: start)).map(\.service) == ["svc"])
    }

    /// What `Status` lists is what a lookup would use: a window whose process tree ended (its pid now
    /// another process's) is not listed, though its time has not passed.
    @Test func theListingLeavesOutAWindowWhoseProcessTreeEnded() throws {
        let windows = ServiceWindows()
        let reused = ServiceWindows.Scope.processTree(pid: getpid(), startTime: try Self.ownStartTime() + 1)
        #expect(windows.open(Self.key(scope: reused), seconds: 300, method: .password, session: nil))
        #expect(windows.open(uid: 1000, scope: reused).isEmpty)
    }

    /// A window lasts at most ``ServiceWindows/maximumSeconds`` (a day) however long it was asked for;
    /// a shorter one lasts what was asked.
    @Test(arguments: [
        (300, 300),
        (ServiceWindows.maximumSeconds, ServiceWindows.maximumSeconds),
        (ServiceWindows.maximumSeconds + 1, ServiceWindows.maximumSeconds),
        (Int.max / 2, ServiceWindows.maximumSeconds),
    ])
    func aWindowsTimeIsClampedToTheMaximum(asked: Int, lasts: Int) throws {
        let windows = ServiceWindows()
        #expect(ServiceWindows.maximumSeconds == 86_400)
        #expect(windows.open(Self.key(), seconds: asked, method: .password, session: nil))
        let listed = try #require(windows.open(uid: 1000, scope: Self.desktop).first)
        #expect(listed.seconds <= lasts && listed.seconds >= lasts - 5, "\(listed.seconds)")
    }

    /// A user holds at most ``ServiceWindows/maximumPerUser`` windows: the next is refused (and not
    /// opened) while renewing one held still works, another user's are counted apart, and closing one
    /// makes room.
    @Test func aUserHoldsAtMostTheMaximumWindows() {
        let windows = ServiceWindows()
        let keys = (0..<ServiceWindows.maximumPerUser).map { Self.key(service: "svc\($0)") }
        for key in keys { #expect(windows.open(key, seconds: 300, method: .password, session: nil)) }
        let extra = Self.key(service: "extra")
        #expect(!windows.open(extra, seconds: 300, method: .password, session: nil))
        #expect(windows.window(extra).window == nil)
        #expect(windows.open(keys[0], seconds: 600, method: .fingerprint(Self.enrolled), session: nil))
        #expect(windows.window(keys[0]).window?.method == .fingerprint(Self.enrolled))
        #expect(windows.open(Self.key(uid: 1001, service: "extra"), seconds: 300, method: .password, session: nil))
        windows.close(keys[1])
        #expect(windows.open(extra, seconds: 300, method: .password, session: nil))
        #expect(!windows.open(Self.key(service: "extra2"), seconds: 300, method: .password, session: nil))
        #expect(windows.open(uid: 1000, scope: Self.desktop).count == ServiceWindows.maximumPerUser)
    }

    /// Windows that already ended, their time passed or their process tree gone, take no place of the
    /// per-user maximum: a busy service never looks such a window up again (a tree that exited is not
    /// asked about), so counting it would refuse the user's windows until the service idles.
    @Test func endedWindowsTakeNoPlaceOfTheMaximum() throws {
        let windows = ServiceWindows()
        let gone = ServiceWindows.Scope.processTree(pid: getpid(), startTime: try Self.ownStartTime() + 1)
        for index in 0..<ServiceWindows.maximumPerUser {
            let ended = index.isMultiple(of: 2)
                ? (Self.key(service: "svc\(index)"), 0) : (Self.key(scope: gone, service: "svc\(index)"), 300)
            #expect(windows.open(ended.0, seconds: ended.1, method: .password, session: nil))
        }
        #expect(windows.open(Self.key(service: "new"), seconds: 300, method: .password, session: nil))
        #expect(windows.window(Self.key(service: "new")).window != nil)
        // The places of open windows still count.
        for index in 1..<ServiceWindows.maximumPerUser {
            #expect(windows.open(Self.key(service: "open\(index)"), seconds: 300, method: .password, session: nil))
        }
        #expect(!windows.open(Self.key(service: "one-too-many"), seconds: 300, method: .password, session: nil))
    }

    /// logind's `Lock` of a session closes the windows opened in it and, `orNone`, those opened outside
    /// any session; its `SessionRemoved` only those opened in it. The counts are per user and leave out
    /// windows that had already ended (which are closed all the same).
    @Test(arguments: [
        (false, [1000: 2, 1001: 1], ["in-other-session", "outside"]),
        (true, [1000: 3, 1001: 1], ["in-other-session"]),
    ] as [(Bool, [UInt32: Int], [String])])
    func closingASessionClosesTheWindowsOpenedInIt(orNone: Bool, counted: [UInt32: Int], left: [String]) {
        let windows = ServiceWindows()
        let opened: [(ServiceWindows.Key, Int, String?)] = [
            (Self.key(service: "in-session-a"), 300, Self.seat),
            (Self.key(service: "in-session-b", policy: .devicePasscode), 300, Self.seat),
            (Self.key(service: "in-session-ended"), 0, Self.seat),
            (Self.key(uid: 1001, service: "in-session-a"), 300, Self.seat),
            (Self.key(service: "in-other-session"), 300, Self.otherSeat),
            (Self.key(service: "outside"), 300, nil),
        ]
        for (key, seconds, session) in opened { #expect(windows.open(key, seconds: seconds, method: .password, session: session)) }
        #expect(windows.close(session: Self.seat, orNone: orNone) == counted)
        let open = opened.map(\.0).filter { windows.window($0).window != nil }.map(\.service)
        #expect(open == left)
    }

    /// `Lock` closes every window of its user, however opened, and says how many; another user's stay.
    @Test func closeAllClosesOnlyThatUsersWindows() {
        let windows = ServiceWindows()
        let mine = [Self.key(service: "a"), Self.key(scope: Self.otherDesktop, service: "b"), Self.key(service: "c", policy: .devicePasscode)]
        let theirs = Self.key(uid: 1001, service: "a")
        for key in mine + [theirs] { #expect(windows.open(key, seconds: 300, method: .password, session: nil)) }
        #expect(windows.closeAll(uid: 1000) == 3)
        for key in mine { #expect(windows.window(key).window == nil) }
        #expect(windows.window(theirs).window != nil)
        #expect(windows.closeAll(uid: 1000) == 0)
        #expect(windows.closeAll(uid: 1001) == 1)
        #expect(windows.isEmpty)
    }

    /// Sleep closes every window of every user, counted per user (an ended one closed but not counted).
    @Test func closeEverythingClosesAllWindowsOfAllUsers() {
        let windows = ServiceWindows()
        let opened: [(ServiceWindows.Key, Int)] = [
            (Self.key(service: "a"), 300), (Self.key(service: "b"), 300), (Self.key(service: "ended"), 0),
            (Self.key(uid: 1001, service: "a"), 300), (Self.key(uid: 1002, service: "ended"), 0),
        ]
        for (key, seconds) in opened { #expect(windows.open(key, seconds: seconds, method: .password, session: nil)) }
        #expect(windows.closeEverything() == [1000: 2, 1001: 1])
        for (key, _) in opened { #expect(windows.window(key).window == nil && !windows.window(key).ended) }
        #expect(windows.isEmpty)
        #expect(windows.closeEverything() == [:])
    }

    /// `Status` lists the caller's open windows in its scope only: service, policy and seconds left;
    /// not another scope's, not another user's in the same scope, not an ended one.
    @Test func theListingIsTheCallersWindowsInItsScope() {
        let windows = ServiceWindows()
        #expect(windows.open(Self.key(service: "a", policy: .biometryCurrentSet), seconds: 300, method: .password, session: nil))
        #expect(windows.open(Self.key(service: "b", policy: .devicePasscode), seconds: 60, method: .password, session: nil))
        #expect(windows.open(Self.key(service: "ended"), seconds: 0, method: .password, session: nil))
        #expect(windows.open(Self.key(scope: Self.otherDesktop, service: "elsewhere"), seconds: 300, method: .password, session: nil))
        #expect(windows.open(Self.key(uid: 1001, service: "theirs"), seconds: 300, method: .password, session: nil))
        let listed = windows.open(uid: 1000, scope: Self.desktop).sorted { $0.service < $1.service }
        #expect(listed.map(\.service) == ["a", "b"])
        #expect(listed.map(\.policy) == [.biometryCurrentSet, .devicePasscode])
        #expect((295...300).contains(listed[0].seconds) && (55...60).contains(listed[1].seconds), "\(listed.map(\.seconds))")
        #expect(windows.open(uid: 1001, scope: Self.desktop).map(\.service) == ["theirs"])
        #expect(windows.open(uid: 1000, scope: Self.otherDesktop).map(\.service) == ["elsewhere"])
        #expect(windows.open(uid: 1002, scope: Self.desktop).isEmpty)
    }

    /// The same scope, item service and policy for two users are two windows: one user's window never
    /// lets the other in, and closing or renewing one leaves the other as it was.
    @Test func oneUsersWindowIsNeverAnothers() throws {
        let windows = ServiceWindows()
        let mine = Self.key(uid: 1000), theirs = Self.key(uid: 1001)
        #expect(windows.open(mine, seconds: 300, method: .fingerprint(Self.enrolled), session: Self.seat))
        #expect(windows.window(theirs).window == nil)
        #expect(windows.open(theirs, seconds: 60, method: .password, session: Self.otherSeat))
        let window = try #require(windows.window(mine).window)
        #expect(window.method == .fingerprint(Self.enrolled) && window.session == Self.seat)
        #expect(window.expires > .now + .seconds(200))
        windows.close(theirs)
        #expect(windows.window(mine).window != nil)
        #expect(windows.close(session: Self.otherSeat, orNone: true) == [:])
        #expect(windows.window(mine).window != nil)
    }
}
#endif
