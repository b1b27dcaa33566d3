#if !os(Linux)
/// Who holds a `flock`: no portable way to ask outside Linux's `/proc/locks`.
enum LockHolder {
    static func processID(device: UInt64, inode: UInt64) -> Int32? { nil }
}
#endif
