#if os(Linux)
import Glibc

/// The fields of `/proc/PID/stat` the package reads: the one parser of that line, whose second field
/// is the process's own name (Fuzz/FuzzProcessStat).
package struct ProcessStat: Equatable {
    /// Field 6.
    package let session: Int
    /// Field 7, `tty_nr` (0: no controlling terminal).
    package let terminal: Int
    /// Field 22, clock ticks after boot.
    package let startTime: UInt64
    /// Field 3; a zombie (`Z`) or a dead process (`X`) holds no terminal any more.
    package let state: Character
    /// Field 4, the parent's pid.
    package let parent: Int

    package init(session: Int, terminal: Int, startTime: UInt64, state: Character, parent: Int) {
        self.session = session
        self.terminal = terminal
        self.startTime = startTime
        self.state = state
        self.parent = parent
    }

    package func isLeader(ofSession session: Int, onTerminal terminal: Int) -> Bool {
        self.session == session && self.terminal == terminal && state != "Z" && state != "X"
    }

    /// Fields after the command name (which may hold spaces and parentheses, so the last `)` ends it):
    /// state (field 3) first, so field N is at index N - 3.
    ///
    /// Bytes, not Characters: the name is the process's own (`PR_SET_NAME`). One that ends in a
    /// prepended mark (U+0600, U+110BD...) would make the closing `)` one Character with it, and an
    /// earlier `)` in the name, followed by numbers the name spells, would be taken for the end.
    package static func parse(_ text: String) -> ProcessStat? {
        let bytes = text.utf8
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[bytes.index(after: close)...].split(separator: UInt8(ascii: " ")).map(Substring.init)
        guard fields.count > 19, let state = fields[0].first, let parent = Int(fields[1]), let session = Int(fields[3]),
            let terminal = Int(fields[4]), let start = UInt64(fields[19])
        else { return nil }
        return ProcessStat(session: session, terminal: terminal, startTime: start, state: state, parent: parent)
    }

    /// A pidfd polls readable once its process has exited (a zombie included).
    package static func isAlive(pidfd: Int32) -> Bool {
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, 0)
            if ready < 0 && errno == EINTR { continue }
            return ready == 0
        }
    }

    package static func read(pid: Int32) -> ProcessStat? {
        guard pid > 0 else { return nil }
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard got > 0 else { return nil }
        return parse(String(decoding: bytes[..<got], as: UTF8.self))
    }
}
#endif
