#if os(Linux)
import Glibc

/// Who holds a `flock`, for the message of a lock wait that timed out: `/proc/locks`, the one place
/// Linux says. Best effort: `nil` when it cannot tell.
enum LockHolder {
    /// The pid holding a `flock` write lock on the file `device`/`inode` (as `fstat` gives them).
    static func processID(device: UInt64, inode: UInt64) -> Int32? {
        // /proc/locks names the device as "major:minor" in hex (glibc's encoding of `dev_t`).
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        let file = "\(String(major, radix: 16, uppercase: false).leftPadded(2)):\(String(minor, radix: 16).leftPadded(2)):\(inode)"
        guard let text = readProcLocks() else { return nil }
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters are "1: -> FLOCK ...".
        let holders = text.split(separator: "\n").compactMap { line -> (file: Substring, pid: Int32)? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", let pid = Int32(fields[4]) else { return nil }
            return (fields[5], pid)
        }
        if let exact = holders.first(where: { $0.file == Substring(file) }) { return exact.pid }
        // Stacked file systems (overlayfs) may show another device than `fstat`: the inode alone, if unique.
        let sameInode = holders.filter { $0.file.hasSuffix(":\(inode)") }
        return sameInode.count == 1 ? sameInode[0].pid : nil
    }

    private static func readProcLocks() -> String? {
        let descriptor = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 4 << 20 {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
#endif
