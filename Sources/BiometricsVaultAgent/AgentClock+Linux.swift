#if os(Linux)
import BiometricsVaultCore
import Glibc

/// The agent's clock and the times it shows.
extension AgentSocket {
    static func sleep(milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }

    /// Seconds since boot, suspend included (`CLOCK_BOOTTIME`): a window does not outlive its length by
    /// sleeping through it, and a change of the wall clock cannot lengthen it.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The local wall-clock time (`HH:MM:SS`) `seconds` from now.
    package static func localTimeOfDay(secondsFromNow seconds: Int) -> String {
        var moment = time(nil) + seconds
        var parts = tm()
        guard localtime_r(&moment, &parts) != nil else { return "?" }
        return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}
#endif
