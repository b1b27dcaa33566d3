#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's words for an `errno` ("Permission denied"), for error descriptions.
func errnoText(_ number: Int32) -> String {
    guard let text = strerror(number) else { return "error \(number)" }
    return String(cString: text)
}
