// Walks the whole state diagram through `VaultModel` (what a SwiftUI app binds to) on the simulated
// device, printing the screen the app would show after each action, and each error in user words.
// Run: swift run VaultWalkthrough
import BiometricsVault
import BiometricsVaultTesting

struct Credentials: Codable, Sendable {
    var username: String
    var token: String
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
func walkthrough() async {
    let device = SimulatedDevice(biometryType: .faceID)
    var configuration = VaultConfiguration(
        store: device.store, authenticator: device.authenticator, reuse: .session(timeout: .seconds(300)),
        service: "com.example.walkthrough", clock: device.clock.vaultClock)
    configuration.installMarker = device.installMarker
    let alice = Credentials(username: "alice", token: "t-1")

    var model = VaultModel<Credentials>(key: "session", configuration: configuration)

    func screen() -> String {
        switch model.screen {
        case .signIn(let biometrics, let invalidation):
            "sign-in screen" + (biometrics ? " (Face ID offered)" : "")
                + (invalidation.map { " — earlier sign-in gone: \($0)" } ?? "")
        case .locked: "\"biometrics locked\" screen"
        case .signedIn(let credentials, let protected):
            "signed in as \(credentials.username)" + (protected ? " (behind Face ID)" : " (stored plainly)")
        }
    }

    func step(_ title: String, _ action: () async -> Bool) async {
        let succeeded = await action()
        if succeeded {
            print("\(title) -> \(screen())")
        } else if let error = model.lastError, let message = model.lastErrorMessage {
            print("\(title) -> error \(error.code): \(message.description) \(message.recoverySuggestion ?? "")")
        } else {
            print("\(title) -> refused (another action is running)")
        }
    }

    print("launch -> \(screen())")
    await step("sign in (stored plainly)") { await model.signIn(credentials: alice, useBiometrics: false) }
    await step("update") { await model.update(credentials: Credentials(username: "alice", token: "t-2")) }
    await step("upgrade (Face ID matches)") { await model.upgrade() }
    model = VaultModel(key: "session", configuration: configuration)
    print("relaunch inside the session -> \(screen())")
    await step("lock") { await model.lock() }
    device.enqueue(.userCancel)
    await step("unlock (user cancels)") { await model.unlock() }
    device.enqueue(.userFallback)
    await step("unlock (user taps \"Enter Password\")") { await model.unlock() }
    device.enqueue(.noMatch, .noMatch, .noMatch, .noMatch, .noMatch)
    for attempt in 1...5 { await step("unlock (no match \(attempt))") { await model.unlock() } }
    await step("unlock (locked out)") { await model.unlock() }
    await step("reauthenticateOwner (passcode)") { await model.reauthenticateOwner() }
    await step("unlock (Face ID matches)") { await model.unlock() }
    configuration.lockAllSessions()
    print("(app went to the background: lockAllSessions)")
    await step("refresh") { model.refresh() }
    await step("unlock (Face ID matches)") { await model.unlock() }
    await step("downgrade") { await model.downgrade() }
    await step("reset (sign out)") { await model.reset() }
    await step("sign in (behind Face ID)") { await model.signIn(credentials: alice) }
    device.changeEnrollment()
    print("(enrollment changed on the device)")
    await step("refresh") { model.refresh() }
    await step("sign in again") { await model.signIn(credentials: alice) }
    device.reinstallApp()
    print("(app deleted and reinstalled: the keychain item survived)")
    model = VaultModel(key: "session", configuration: configuration)
    print("first launch -> \(screen())")
    print("prompts shown: \(device.promptCount)")
}

if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
    await walkthrough()
} else {
    print("VaultModel needs Observation (macOS 14 / iOS 17)")
}
