#if os(Linux)
import Glibc

/// Echo off on a terminal stdin while credentials are typed, restored on every path: normal return, and
/// the signals a user sends from the keyboard or a closing terminal (Ctrl-C exits 3, "cancelled").
enum TerminalEcho {
    /// The mode to restore, for the signal handler (which cannot capture context). Written before the
    /// handlers are installed and only read after: no concurrent access.
    nonisolated(unsafe) private static let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    private static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Runs `body` with echo off on `fd` (stdin); `nil` when the terminal mode cannot be changed.
    static func withEchoOff<Result>(_ fd: Int32, _ body: () -> Result) -> Result? {
        guard fd == STDIN_FILENO, tcgetattr(fd, saved) == 0 else { return nil }
        var quiet = saved.pointee
        // Canonical mode stays (line editing, Ctrl-D ends); only the echo goes, except for newlines so
        // the cursor still moves on.
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
        quiet.c_lflag |= tcflag_t(ECHONL)
        // A signal the caller ignores stays ignored (``ProcessHardening/wasIgnoredAtStart(_:)``).
        let handled = signals.filter { !ProcessHardening.wasIgnoredAtStart($0) }
        let previous = handled.map { signal($0, restoreAndExit) }
        defer {
            for (number, handler) in zip(handled, previous) { signal(number, handler) }
        }
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer { _ = tcsetattr(fd, TCSANOW, saved) }
        return body()
    }

    /// Async-signal-safe: tcsetattr, write and _exit only.
    private static let restoreAndExit: @convention(c) (Int32) -> Void = { number in
        _ = tcsetattr(STDIN_FILENO, TCSANOW, TerminalEcho.saved)
        var newline: UInt8 = 0x0A
        _ = write(STDERR_FILENO, &newline, 1)
        _exit(number == SIGINT ? 3 : 128 + number)  // 3: ExitStatus.cancelled
    }
}
#else
/// Elsewhere the typed credentials are echoed (the Linux version switches echo off).
enum TerminalEcho {
    static func withEchoOff<Result>(_ fd: Int32, _ body: () -> Result) -> Result? { body() }
}
#endif
