#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The parts that need no daemon: fprintd error mapping, the enrollment hash, the lockout file.
@Suite(.onTestThreads)
struct FprintdErrorMappingTests {
    @Test(arguments: [
        ("net.reactivated.Fprint.Error.NoSuchDevice", true, FingerprintAvailability.noDevice, VaultError.Code.biometryNotAvailable),
        ("net.reactivated.Fprint.Error.NoEnrolledPrints", true, .notEnrolled, .biometryNotEnrolled),
        ("net.reactivated.Fprint.Error.PermissionDenied", true, .permissionDenied, .biometryNotAvailable),
        ("net.reactivated.Fprint.Error.AlreadyInUse", true, .deviceBusy, .systemCancel),
        ("org.freedesktop.DBus.Error.ServiceUnknown", true, .noFprintd, .biometryNotAvailable),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", true, .noFprintd, .biometryNotAvailable),
        ("g-io-error-quark", false, .noFprintd, .biometryNotAvailable),
        ("net.reactivated.Fprint.Error.Internal", true, .noDevice, .biometryNotAvailable),
    ])
    func dbusErrorsMapToTypedReasons(
        name: String, isRemote: Bool, reason: FingerprintAvailability, code: VaultError.Code
    ) {
        let failure = FprintdFailure(
            DBusFailure(name: name, code: 1, message: "detail", isRemote: isRemote), during: "Claim")
        #expect(failure.reason == reason)
        #expect(failure.vaultError.code == code)
        // The cause is kept: the D-Bus name (or GError domain) and the operation.
        #expect(failure.vaultError.underlying?.description.contains(name) == true)
    }

    @Test func everyUnavailableReasonHasAnError() {
        let reasons: [FingerprintAvailability] = [.noFprintd, .noDevice, .notEnrolled, .permissionDenied, .deviceBusy]
        for reason in reasons { #expect(reason.error != nil, "\(reason)") }
        #expect(FingerprintAvailability.available.error == nil)
    }
}

@Suite(.onTestThreads)
struct EnrollmentFingerprintTests {
    @Test func ignoresFingerOrderButNotTheSet() {
        let one = FingerprintAuthenticator.enrollment(user: "ann", device: "Reader", fingers: ["right-index-finger", "left-thumb"])
        let same = FingerprintAuthenticator.enrollment(user: "ann", device: "Reader", fingers: ["left-thumb", "right-index-finger"])
        let added = FingerprintAuthenticator.enrollment(
            user: "ann", device: "Reader", fingers: ["left-thumb", "right-index-finger", "left-index-finger"])
        let otherUser = FingerprintAuthenticator.enrollment(user: "bob", device: "Reader", fingers: ["right-index-finger", "left-thumb"])
        let otherDevice = FingerprintAuthenticator.enrollment(user: "ann", device: "Other", fingers: ["right-index-finger", "left-thumb"])
        #expect(one == same)
        #expect(one != added)
        #expect(one != otherUser)
        #expect(one != otherDevice)
        // Fields are separated, so moving text between them changes the hash.
        #expect(FingerprintAuthenticator.enrollment(user: "a", device: "bc", fingers: ["x"])
            != FingerprintAuthenticator.enrollment(user: "ab", device: "c", fingers: ["x"]))
    }
}

@Suite(.onTestThreads)
struct LockoutStoreTests {
    let directory = Harness.temporaryStateDirectory().appendingPathComponent("state")

    @Test func countsAcrossInstancesAndResetsOnMatchOrOwner() throws {
        let store = LockoutStore(directoryPath: directory.path, user: "ann")
        #expect(try store.load().consecutiveFailures == 0)
        for _ in 0..<FailedAttemptCounter.limit { try store.record(.noMatch) }
        // A new instance (another process) reads the same file.
        #expect(try LockoutStore(directoryPath: directory.path, user: "ann").load().isLockedOut)
        #expect(try LockoutStore(directoryPath: directory.path, user: "bob").load().consecutiveFailures == 0)
        try store.record(.cancelled)
        #expect(try store.load().isLockedOut, "a cancel never changes the count")
        try store.record(.ownerAuthenticated)
        #expect(try store.load().consecutiveFailures == 0)
        try store.record(.noMatch)
        try store.record(.match)
        #expect(try store.load().consecutiveFailures == 0)
    }

    @Test func fileIsPrivateAndAnUnreadableCountFailsClosed() throws {
        let store = LockoutStore(directoryPath: directory.path, user: "ann")
        try store.record(.noMatch)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? NSNumber
        let fileMode = try FileManager.default.attributesOfItem(atPath: store.filePath)[.posixPermissions] as? NSNumber
        #expect(directoryMode?.intValue == 0o700)
        #expect(fileMode?.intValue == 0o600)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: store.filePath))
        #expect(try store.load().isLockedOut)
        try store.record(.ownerAuthenticated)
        #expect(try store.load().consecutiveFailures == 0)
    }

    @Test func concurrentFailuresAreAllCounted() async throws {
        let store = LockoutStore(directoryPath: directory.path, user: "ann")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try? store.record(.noMatch) } }
        }
        #expect(try store.load().consecutiveFailures == 4)
    }

    @Test func userNamesCannotEscapeTheDirectory() {
        let store = LockoutStore(directoryPath: directory.path, user: "../../etc/x")
        #expect(URL(fileURLWithPath: store.filePath).deletingLastPathComponent().path == directory.path)
        #expect(store.filePath == directory.path + "/fingerprint-attempts-.._.._etc_x")
        let unicode = LockoutStore(directoryPath: directory.path + "//", user: "jörg/ü 1")
        #expect(unicode.filePath == directory.path + "/fingerprint-attempts-jörg_ü_1")
    }

    /// What the counter file may hold: digits, white space around them; anything else is a lockout.
    @Test(arguments: [
        ("3\n", 3), ("0", 0), ("  4 \n\n", 4), ("\t12\r\n", 12), ("999999999999999999", 999_999_999_999_999_999),
        ("garbage", nil), ("-1", nil), ("+2", nil), ("1 2", nil), ("9999999999999999999", nil), (" \n", nil),
        ("3\u{00A0}", nil),
    ] as [(String, Int?)])
    func counterFileContents(text: String, count: Int?) throws {
        let store = LockoutStore(directoryPath: directory.path, user: "ann")
        _ = try store.load()
        try Data(text.utf8).write(to: URL(fileURLWithPath: store.filePath))
        #expect(try store.load().consecutiveFailures == count ?? FailedAttemptCounter.limit)
    }
}
#endif
