#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Single environment variables, read with `getenv`: `ProcessInfo.environment` copies the whole
/// environment into a dictionary at every call, and these are asked on every command's start-up path.
package enum EnvironmentVariable {
    /// Whether `name` is set to a non-empty value.
    package static func isSet(_ name: String) -> Bool {
        getenv(name).map { $0.pointee != 0 } ?? false
    }
}
