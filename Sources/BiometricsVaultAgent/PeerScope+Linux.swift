#if os(Linux)
import FoundationEssentials
import Glibc

/// Where a peer process runs, as far as unlock windows go: its controlling terminal and its session, read
/// from `/proc/PID/stat` (as sudo scopes its timestamp per terminal). Two processes share windows only when
/// both are equal; a process without a controlling terminal has no scope and gets no window.
struct PeerScope: Hashable, CustomStringConvertible {
    /// `tty_nr`: the controlling terminal's device number (never 0 here).
    let terminal: Int
    /// The session id (the session leader's pid).
    let session: Int

    var description: String { "tty \(terminal >> 8 & 0xFFF):\(terminal & 0xFF | (terminal >> 12) & 0xFFF00) session \(session)" }

    /// The scope of `pid`; `nil` when it has no controlling terminal or `/proc` cannot tell.
    static func of(pid: Int32) -> PeerScope? {
        guard pid > 0, let text = readStat(pid) else { return nil }
        return parse(stat: text)
    }

    /// Fields after the command name (which may hold spaces and parentheses, so the last `)` ends it):
    /// state, ppid, pgrp, session, tty_nr.
    static func parse(stat text: String) -> PeerScope? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 4, let session = Int(fields[3]), let terminal = Int(fields[4]), terminal != 0 else { return nil }
        return PeerScope(terminal: terminal, session: session)
    }

    private static func readStat(_ pid: Int32) -> String? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard got > 0 else { return nil }
        return String(decoding: bytes[..<got], as: UTF8.self)
    }
}
#endif
