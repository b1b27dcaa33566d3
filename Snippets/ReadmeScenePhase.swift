// snippet.hide
// Compiled like every snippet by `swift build`. On Apple platforms against SwiftUI itself; on Linux, where
// there is no SwiftUI, against the minimal stand-in below (only the names the shown code uses, with
// SwiftUI's signatures), so the shown code is type-checked in the Linux CI too. The stand-in checks names
// and types, not SwiftUI's behaviour.
#if canImport(SwiftUI)
import SwiftUI
#else
@MainActor protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}
/// Where SwiftUI's primitive views end their `body` chain.
struct PrimitiveView: View {
    var body: PrimitiveView { self }
}
struct Text: View {
    init(_ text: String) {}
    var body: PrimitiveView { PrimitiveView() }
}
struct Group<Content: View>: View {
    init(@ViewBuilder content: () -> Content) {}
    var body: PrimitiveView { PrimitiveView() }
}
struct ConditionalView<First: View, Second: View>: View {
    var body: PrimitiveView { PrimitiveView() }
}
@resultBuilder enum ViewBuilder {
    static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    static func buildEither<First: View, Second: View>(first: First) -> ConditionalView<First, Second> { .init() }
    static func buildEither<First: View, Second: View>(second: Second) -> ConditionalView<First, Second> { .init() }
}
enum ScenePhase: Equatable, Sendable { case background, inactive, active }
struct EnvironmentValues { var scenePhase: ScenePhase { .active } }
@propertyWrapper struct Environment<Value> {
    init(_ keyPath: KeyPath<EnvironmentValues, Value>) { wrappedValue = EnvironmentValues()[keyPath: keyPath] }
    let wrappedValue: Value
}
@propertyWrapper struct State<Value> {
    init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    var wrappedValue: Value
}
extension View {
    func onChange<Value: Equatable>(
        of value: Value, initial: Bool = false, _ action: @escaping (Value, Value) -> Void
    ) -> some View { self }
}
#endif
import BiometricsVault
import BiometricsVaultTesting

struct AppCredentials: Codable, Sendable {
    var username: String
    var token: String
}

let device = SimulatedDevice(biometryType: .faceID)
let configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator)

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
struct SignInScreen: View {
    let model: VaultModel<AppCredentials>
    var body: some View { Text("Sign in") }
}
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
struct LockedScreen: View {
    let model: VaultModel<AppCredentials>
    var body: some View { Text("Unlock with Face ID") }
}
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
struct HomeScreen: View {
    let credentials: AppCredentials
    let model: VaultModel<AppCredentials>
    var body: some View { Text("Hello, \(credentials.username)") }
}
// snippet.show
@available(iOS 17, macOS 14, visionOS 1, *)
struct RootView: View {
    @Environment(\.scenePhase) private var scenePhase
    @State private var model = VaultModel<AppCredentials>(key: "login", configuration: configuration)

    var body: some View {
        Group {
            switch model.screen {
            case .signIn: SignInScreen(model: model)
            case .locked: LockedScreen(model: model)
            case .signedIn(let credentials, _): HomeScreen(credentials: credentials, model: model)
            }
        }
        .onChange(of: scenePhase) { _, phase in
            if phase == .background {
                configuration.lockAllSessions()  // every session of this configuration (and its copies) ends
            } else if phase == .active {
                model.refresh()  // shows the locked screen if the session ended; never asks for a fingerprint
            }
        }
    }
}
// snippet.hide
