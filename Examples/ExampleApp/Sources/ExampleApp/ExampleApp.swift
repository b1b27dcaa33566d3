import BiometricsVault
import BiometricsVaultTesting
import Foundation
import SwiftUI

struct AppCredentials: Codable, Sendable {
    var username: String
    var token: String
}

/// The real Keychain + Face ID / Touch ID, or (BV_EXAMPLE_SIMULATED=1, e.g. an unsigned `swift run` on a
/// Mac, which the data protection keychain refuses) the simulated device.
let configuration: VaultConfiguration = {
    var configuration: VaultConfiguration
    if ProcessInfo.processInfo.environment["BV_EXAMPLE_SIMULATED"] == "1" {
        let device = SimulatedDevice(biometryType: .touchID)
        configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator)
    } else {
        configuration = .platformDefault
    }
    configuration.reuse = .session(timeout: .seconds(300))
    configuration.prompt = PromptText(reason: "Sign in to the example", cancel: "Not Now", fallback: "Use Password")
    // Start clean after a reinstall: keychain items outlive the app, its UserDefaults do not.
    configuration.installMarker = .userDefaults()
    return configuration
}()

@main
struct ExampleApp: App {
    var body: some Scene {
        WindowGroup { RootView() }
    }
}

/// The seed's three screens, driven by `VaultModel`; locks every session when the app leaves the screen.
struct RootView: View {
    @Environment(\.scenePhase) private var scenePhase
    @State private var model = VaultModel<AppCredentials>(key: "login", configuration: configuration)
    @State private var alertShown = false

    var body: some View {
        Group {
            switch model.screen {
            case .signIn(let biometricsAvailable, let invalidation):
                SignInView(model: model, biometricsAvailable: biometricsAvailable, invalidation: invalidation)
            case .locked:
                LockedView(model: model)
            case .signedIn(let credentials, let biometricsEnabled):
                SignedInView(model: model, credentials: credentials, biometricsEnabled: biometricsEnabled)
            }
        }
        .padding()
        .disabled(model.isWorking)
        .onChange(of: scenePhase) { _, phase in
            if phase == .background {
                configuration.lockAllSessions()
            } else if phase == .active {
                model.refresh()
            }
        }
        .onChange(of: model.lastError) { _, error in
            // Cancels are not worth an alert; the fallback button leads to the password form instead.
            alertShown = error.map { $0 != .userCancel && $0 != .systemCancel && $0 != .userFallback } ?? false
        }
        .alert(model.lastErrorMessage?.description ?? "", isPresented: $alertShown) {
            Button("OK", role: .cancel) {}
        } message: {
            Text(model.lastErrorMessage?.recoverySuggestion ?? "")
        }
    }
}

struct SignInView: View {
    let model: VaultModel<AppCredentials>
    let biometricsAvailable: Bool
    let invalidation: VaultInvalidation?
    @State private var username = ""
    @State private var password = ""
    @State private var useBiometrics = true

    var body: some View {
        Form {
            if invalidation == .biometryChanged {
                Text("Your Face ID or Touch ID settings changed. Please sign in again.")
            } else if invalidation == .appReinstalled {
                Text("Welcome back. Please sign in again.")
            } else if invalidation == .passcodeRemoved {
                Text("The device passcode was removed, which erased your saved sign-in. Please sign in again.")
            }
            TextField("User name", text: $username)
            SecureField("Password", text: $password)
            if biometricsAvailable {
                Toggle("Sign in with Face ID or Touch ID next time", isOn: $useBiometrics)
            }
            Button("Sign In") {
                // A real app exchanges the password for a token with its server; never store the password.
                let credentials = AppCredentials(username: username, token: UUID().uuidString)
                Task { await model.signIn(credentials: credentials, useBiometrics: useBiometrics) }
            }
            .disabled(username.isEmpty || password.isEmpty)
        }
    }
}

struct LockedView: View {
    let model: VaultModel<AppCredentials>

    var body: some View {
        VStack(spacing: 16) {
            Text("Biometrics locked")
            Button("Unlock") { Task { await model.unlock() } }
            if model.lastError == .biometryLockout {
                Button("Enter Passcode") { Task { await model.reauthenticateOwner() } }
            }
            if model.lastError == .userFallback {
                // The user tapped "Use Password": sign out and show the sign-in form.
                Button("Sign In with Password") { Task { await model.reset() } }
            }
        }
    }
}

struct SignedInView: View {
    let model: VaultModel<AppCredentials>
    let credentials: AppCredentials
    let biometricsEnabled: Bool

    var body: some View {
        VStack(spacing: 16) {
            Text("Signed in as \(credentials.username)")
            if biometricsEnabled {
                Button("Lock") { Task { await model.lock() } }
                Button("Turn Off Face ID / Touch ID") { Task { await model.downgrade() } }
            } else if model.canUpgrade {
                Button("Turn On Face ID / Touch ID") { Task { await model.upgrade() } }
            }
            Button("Sign Out", role: .destructive) { Task { await model.reset() } }
        }
    }
}
