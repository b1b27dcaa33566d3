#if canImport(Security) && !(canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))) && !APPLE_SDK_STUBS
// tvOS and watchOS: the Keychain store works there (plain items), but this package offers no
// LocalAuthentication authenticator, so there is no evaluated context and no enrollment to read.
extension SystemKeychainClient {
    package static var platformDefault: SystemKeychainClient {
        SystemKeychainClient(makeNonInteractiveContext: { nil }, currentEnrollmentReadings: { .none })
    }
}
#endif
