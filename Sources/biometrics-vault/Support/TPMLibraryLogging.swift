#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// tpm2-tss prints its own warnings on stderr (`WARNING:esys:...`) unless `TSS2_LOG` says otherwise, and
/// has no other switch. The CLI's error line already says what failed, so the CLI silences them for
/// itself: at the start of `main`, while the process has one thread (`setenv` races with `getenv` on
/// other threads, which is why the library never does this), and only when the caller set no
/// `TSS2_LOG` of their own. `exec` does not pass the CLI's own value on to COMMAND.
enum TPMLibraryLogging {
    static let variable = "TSS2_LOG"

    /// Whether this process added `TSS2_LOG` (decided once, by the first use, which is `main`'s first line).
    static let addedHere: Bool = {
        guard getenv(variable) == nil else { return false }
        return setenv(variable, "all+NONE", 0) == 0
    }()

    /// Call first in `main`, before any thread starts.
    static func silenceForThisProcess() {
        _ = addedHere
    }
}
