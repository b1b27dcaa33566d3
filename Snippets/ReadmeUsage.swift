// snippet.hide
import BiometricsVault
import BiometricsVaultTesting

let device = SimulatedDevice(biometryType: .faceID)
let configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator)

@MainActor func show(_ message: String) { print(message) }
@MainActor func askUserToSignIn() -> AppCredentials? { AppCredentials(username: "alice", token: "t-1") }
// snippet.show
struct AppCredentials: Codable, Sendable {
    var username: String
    var token: String
}

@MainActor
func signIn(configuration: VaultConfiguration) async {
    do {
        let vault = try VaultFactory<AppCredentials>.retrieveVaultOrThrow(key: "login", configuration: configuration)
        switch vault {
        case .emptyWithBiometrics(let empty), .empty(let empty):
            if empty.invalidation == .biometryChanged { show("Face ID changed: please sign in again") }
            guard let credentials = askUserToSignIn() else { return }
            if case .emptyWithBiometrics = vault {
                let unlocked = try await empty.storeToBiometrics(credentials: credentials)
                show("Signed in as \(unlocked.credentials.username), protected by biometrics")
            } else {
                let stored = try empty.storeToKeychain(credentials: credentials)
                show("Signed in as \(stored.credentials.username)")
            }
        case .keychain(let stored):
            show("Welcome back, \(stored.credentials.username)")
        case .keychainUpgradable(let stored):
            let protected = try await stored.upgrade()  // one prompt; atomic
            show("Welcome back, \(protected.credentials.username); now behind biometrics")
        case .biometrics(let unlocked):
            show("Welcome back, \(unlocked.credentials.username)")
        case .locked(let locked):
            let unlocked = try await locked.unlock()  // one prompt
            show("Welcome back, \(unlocked.credentials.username)")
        }
    } catch let error as VaultError where error.code == .biometryLockout {
        show("Too many attempts: enter your passcode")  // then reauthenticateOwner()
    } catch let error as VaultError where error.code == .userCancel {
        return  // never counted as a failed attempt
    } catch let error as VaultError where error.code == .userFallback {
        show("Sign in with your password")  // the user tapped "Enter Password"
    } catch {
        show("Could not sign in: \(error.localizedDescription)")  // VaultError: plain user words
    }
}
// snippet.hide
await signIn(configuration: configuration)
