#if os(Linux)
import BiometricsVaultCore
import CProcessControl
import Glibc

/// A store key the agent holds: in its own anonymous pages, locked in RAM (`mlock`: never written to
/// swap), left out of core dumps (`madvise(MADV_DONTDUMP)`), and zeroed (`explicit_bzero`, which the
/// compiler cannot drop) before they are unlocked and unmapped when the last reference goes away. Used
/// by the agent's one thread only. This file is the one that calls `mmap`, `mlock`, `madvise` and
/// `prctl` for the agent.
final class LockedSecret {
    let count: Int
    private let region: UnsafeMutableRawPointer
    private let size: Int

    /// `count` zero bytes of locked, undumpable memory; `storeUnavailable` (with the errno) when the
    /// pages cannot be mapped or locked (`ulimit -l`): the key is then not kept at all.
    init(count: Int) throws(VaultError) {
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        size = max(page, (count + page - 1) / page * page)
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else { throw VaultError(.storeUnavailable, underlying: .errno(errno)) }
        guard madvise(mapped, size, MADV_DONTDUMP) == 0, mlock(mapped, size) == 0 else {
            let failure = errno
            munmap(mapped, size)
            throw VaultError(.storeUnavailable, underlying: .errno(failure))
        }
        region = mapped
        self.count = count
    }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: region, count: count))
    }

    func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(start: region, count: count))
    }

    deinit {
        explicit_bzero(region, size)
        munlock(region, size)
        munmap(region, size)
    }
}

/// The agent's process: not dumpable, so no core file holds a key and no other process of the user can
/// attach to it with ptrace or read its memory through `/proc/PID/mem`.
enum AgentProcess {
    static func makeNotDumpable() throws(VaultError) {
        guard bv_set_not_dumpable() == 0 else { throw VaultError(.storeUnavailable, underlying: .errno(errno)) }
    }

    /// Zeroes an ordinary buffer that held key bytes on their way (`explicit_bzero`: not optimised away).
    static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }
}
#endif
