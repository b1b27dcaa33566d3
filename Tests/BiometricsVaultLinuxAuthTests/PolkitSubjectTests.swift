#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// polkit's unix-process subject is a pid and its start time, so that a pid reused by another process is
/// another subject. The start time is read from `/proc/PID/stat`, whose second field is the process's
/// own name: whatever the name, the time is the kernel's, and a process that is gone has none.
@Suite(.onTestThreads)
struct PolkitSubjectTests {
    /// A process named to end in a prepended mark (U+0600), after a `)` and numbers that spell other
    /// fields: its start time is still its own, as the kernel's line has it read by bytes.
    @Test(arguments: ["plain", ")S 1 2 7 5 \u{600}", "a) b"])
    func theStartTimeIsTheKernelsWhateverTheName(name: String) async throws {
        let script = """
            import ctypes, sys
            ctypes.CDLL(None).prctl(15, ctypes.c_char_p(sys.argv[1].encode()), 0, 0, 0)
            stat = open("/proc/self/stat", "rb").read()
            print(stat[stat.rindex(b")") + 2:].split(b" ")[19].decode(), flush=True)
            sys.stdin.read()
            """
        let child = try await Shell.spawn("/usr/bin/python3", ["-c", script, name])
        let line = String(decoding: try await Shell.readChunk(child.stdout) ?? [], as: UTF8.self)
        let startTime = PolkitAuthority.processStartTime(of: "\(child.process.processIdentifier)")
        close(child.stdin)
        _ = try await child.process.exit()
        for fd in [child.stdout, child.stderr] { close(fd) }
        let expected = try #require(UInt64(line.trimmingCharacters(in: .whitespacesAndNewlines)), "\(line)")
        #expect(startTime == expected)
    }

    /// No start time for a process that is gone (never 0, which polkit would take as "look it up" for
    /// whatever process then has the pid).
    @Test func aProcessThatIsGoneHasNoStartTime() async throws {
        let child = try await Shell.spawn("/bin/true", [])
        let pid = child.process.processIdentifier
        _ = try await child.process.exit()
        for fd in [child.stdin, child.stdout, child.stderr] { close(fd) }
        #expect(PolkitAuthority.processStartTime(of: "\(pid)") == nil)
        #expect(PolkitAuthority.processStartTime(of: "not-a-pid") == nil)
    }
}
#endif
