#if os(Linux)
import Glibc

/// Password prompts on the controlling terminal (`/dev/tty`), with echo off.
///
/// The terminal is switched to non-canonical mode without echo and without signal keys for the duration
/// of one answer, so Ctrl-C arrives as a byte and cancels the prompt (rather than killing the process
/// with the terminal left silent); the previous mode is always restored.
enum TerminalPrompt {
    /// Whether this process has a controlling terminal it can open.
    static var isAvailable: Bool {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Shows one informational line on the terminal.
    static func show(_ text: String) {
        let fd = open("/dev/tty", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        writeAll(fd, Array((text + "\n").utf8))
    }

    /// Prompts and reads one line without echo. `nil` on Ctrl-C, Ctrl-D on an empty line, EOF, or when
    /// there is no terminal.
    static func readSecret(prompt: String) -> SecretBytes? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }

        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // The prompt only once echo is off and Ctrl-C is a byte: whoever answers it as soon as it shows
        // (a person typing fast, a test driving a pty) must not be echoed or killed by SIGINT.
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            writeAll(fd, Array("\n".utf8))
        }
        writeAll(fd, Array(prompt.utf8))

        var answer: [UInt8] = []
        answer.reserveCapacity(128)
        defer { zero(&answer) }
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return nil }
            switch byte {
            case 0x0A, 0x0D:  // Enter
                return SecretBytes(answer)
            case 0x03:  // Ctrl-C
                return nil
            case 0x04:  // Ctrl-D
                if answer.isEmpty { return nil }
                return SecretBytes(answer)
            case 0x7F, 0x08:  // Backspace: drop one UTF-8 character
                while let last = answer.last {
                    answer[answer.count - 1] = 0
                    answer.removeLast()
                    if last & 0xC0 != 0x80 { break }
                }
            case 0x15:  // Ctrl-U: clear the line
                zero(&answer)
                answer.removeAll(keepingCapacity: true)
            default:
                answer.append(byte)
            }
        }
    }

    private static func zero(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
#endif
