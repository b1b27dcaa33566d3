#if canImport(Security) || APPLE_SDK_STUBS
import Testing
#endif
