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

/// The XDG base directories (data, state): an absolute path from the variable, else one under the home
/// directory. An empty or relative value counts as unset, as the XDG Base Directory specification says;
/// so does an empty or relative `HOME`, which falls back to the password database. Never the current
/// directory: `HOME=""` must not put secrets under wherever the command happens to run.
package enum BaseDirectory {
    /// `$variable` when absolute, else `home/fallback`; `nil` when there is no usable home directory.
    package static func path(_ variable: String, orUnderHome fallback: String) -> String? {
        if let value = EnvironmentVariable.value(variable), value.hasPrefix("/") { return value }
        guard let home = homeDirectory() else { return nil }
        return (home.hasSuffix("/") ? home : home + "/") + fallback
    }

    /// `$HOME` when absolute, else the user's entry in the password database when absolute.
    package static func homeDirectory() -> String? {
        if let home = EnvironmentVariable.value("HOME"), home.hasPrefix("/") { return home }
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        let path = String(cString: directory)
        return path.hasPrefix("/") ? path : nil
    }

    /// Why ``path(_:orUnderHome:)`` found nothing, in words.
    package static func noHome(_ variable: String) -> String {
        "no home directory: \(variable) is unset (or not absolute), HOME is empty or not absolute, and the password database gives none; set \(variable) or HOME to an absolute path"
    }
}
