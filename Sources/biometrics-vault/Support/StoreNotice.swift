#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fallback notice (`auto` found no Secret Service and uses the encrypted file store), kept off
/// stderr in scripts: `TOKEN=$(biometrics-vault show K --field token)` in a cron job prints nothing
/// there on success. It is said while the file store does not exist yet (the run that creates it), in
/// `doctor`, and on every run with `--verbose`, which also keeps the library's details (GError domain
/// and code) that the short form leaves out. The credential helpers (git, docker) never say it unasked
/// (`announced: false`): their clients read stderr (git's own helper suite fails on any byte there), and
/// a helper that only answers `get` would otherwise say it on every call, since `get` creates no store.
enum StoreNotice {
    static let fileStoreMarker = "using the encrypted file store in "

    static func line(for notice: String?, verbose: Bool, announced: Bool = true) -> String? {
        guard let notice else { return nil }
        if verbose { return notice }
        guard announced else { return nil }
        guard let location = fileStoreLocation(in: notice) else { return notice }
        guard !FileManager.default.fileExists(atPath: location) else { return nil }
        return "there is no Secret Service on the session bus; keeping credentials in the encrypted file store in \(location) (said once; `biometrics-vault doctor` says why)"
    }

    /// The file store's directory, as the library's notice names it.
    static func fileStoreLocation(in notice: String) -> String? {
        guard let location = Text.suffix(of: notice, after: fileStoreMarker).map(String.init) else { return nil }
        return location.isEmpty ? nil : location
    }
}
