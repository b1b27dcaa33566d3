#if canImport(Security) || APPLE_SDK_STUBS
extension KeychainPlatform {
    #if os(macOS)
    /// The platform this code was compiled for.
    public static let current = KeychainPlatform.macOS
    #else
    /// The platform this code was compiled for (the Linux check build models iOS).
    public static let current = KeychainPlatform.iOSFamily
    #endif
}
#endif
