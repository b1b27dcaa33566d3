#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Single environment variables, read with `getenv`: `ProcessInfo.environment` copies the whole
/// environment into a dictionary at every call, and these are asked on start-up paths (the store
/// directories, the fprintd probe of the first `retrieveVault`, the platform selection). Only `exec`,
/// which hands the whole environment on, uses `ProcessInfo`.
package enum EnvironmentVariable {
    /// Whether `name` is set to a non-empty value.
    package static func isSet(_ name: String) -> Bool {
        getenv(name).map { $0.pointee != 0 } ?? false
    }

    /// The value of `name`; `nil` when it is unset (an empty value is returned as `""`).
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
