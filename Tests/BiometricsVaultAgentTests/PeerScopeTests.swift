#if os(Linux)
@testable import BiometricsVaultProcess
import Glibc
import Testing

/// The scope a window belongs to: read from `/proc/PID/stat` (``ProcessStat/parse(_:)``), and a scope
/// only for a process on a terminal whose session leader is alive on it (``PeerScope/of(stat:)``).
@Suite struct PeerScopeTests {
    /// A line as the kernel writes it: pid, `(name)`, state, then fields 4 to 52.
    static func line(name: String = "bash", state: String = "S", parent: Int = 1, session: Int, terminal: Int, start: UInt64) -> String {
        var fields = (4...52).map { String($0 * 7) }
        fields[4 - 4] = String(parent)
        fields[6 - 4] = String(session)
        fields[7 - 4] = String(terminal)
        fields[22 - 4] = String(start)
        return "4242 (\(name)) \(state) " + fields.joined(separator: " ") + "\n"
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let line: String
        let expected: ProcessStat?
        var testDescription: String { String(line.prefix(40)) }
    }

    static let rows: [Row] = [
        Row(line: line(session: 1234, terminal: 34816, start: 99), expected: ProcessStat(session: 1234, terminal: 34816, startTime: 99, state: "S", parent: 1)),
        Row(line: line(state: "Z", parent: 7, session: 5, terminal: 0, start: 0), expected: ProcessStat(session: 5, terminal: 0, startTime: 0, state: "Z", parent: 7)),
        Row(line: line(name: "a) S 1 2 3 4", session: 42, terminal: 1025, start: 12), expected: ProcessStat(session: 42, terminal: 1025, startTime: 12, state: "S", parent: 1)),
        Row(line: "", expected: nil),
        Row(line: "4242 bash S 1 2 3 4", expected: nil),
        Row(line: "4242 (bash) S 1 2 3 4 5", expected: nil),
        Row(line: "4242 (bash) S 1 2 x 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22", expected: nil),
    ]

    @Test(arguments: rows)
    func aStatLineGivesTheKernelsFields(_ row: Row) {
        #expect(ProcessStat.parse(row.line) == row.expected)
    }

    /// No terminal, no session, a session whose leader is gone, or a leader that is not on that terminal:
    /// no scope, so no window and no key.
    @Test(arguments: [
        (session: 1234, terminal: 0),
        (session: 0, terminal: 34816),
        (session: -5, terminal: 34816),
        (session: Int(Int32.max), terminal: 34816),
        (session: Int(getpid()), terminal: 0x7FFF_FFFF),
    ] as [(session: Int, terminal: Int)])
    func noScopeWithoutALiveLeaderOnTheTerminal(session: Int, terminal: Int) {
        let stat = ProcessStat(session: session, terminal: terminal, startTime: 1, state: "S", parent: 1)
        #expect(PeerScope.of(stat: stat) == nil)
    }

    /// This process's own scope: none without a terminal (as in CI); with one, the scope of its session.
    @Test func thisProcessHasAScopeExactlyWhenItHasATerminal() throws {
        let own = try #require(ProcessStat.read(pid: getpid()))
        let scope = PeerScope.of(stat: own)
        #expect(PeerScope.thisProcessHasTerminal == (own.terminal != 0))
        if own.terminal == 0 { #expect(scope == nil) }
        if let scope {
            #expect(scope.isCurrent)
            #expect(scope.session == own.session && scope.terminal == own.terminal)
        }
    }

    @Test(arguments: [(34816, "136:0"), (34819, "136:3"), (1025, "4:1"), (0x8800 | 0x100000, "136:256")] as [(Int, String)])
    func aScopeNamesItsTerminalAsMajorAndMinor(terminal: Int, shown: String) {
        let scope = PeerScope(terminal: terminal, session: 42, leaderStart: 7, leaderInode: 1)
        #expect(scope.description == "tty \(shown) session 42 (leader started at tick 7)")
    }

    /// Two sessions that share a terminal and a session number but not the leader's start or inode are
    /// two scopes (a later session reusing the number gets nothing of the earlier one's).
    @Test func aReusedSessionNumberIsAnotherScope() {
        let first = PeerScope(terminal: 34816, session: 42, leaderStart: 7, leaderInode: 1)
        #expect(first != PeerScope(terminal: 34816, session: 42, leaderStart: 8, leaderInode: 1))
        #expect(first != PeerScope(terminal: 34816, session: 42, leaderStart: 7, leaderInode: 2))
        #expect(first == PeerScope(terminal: 34816, session: 42, leaderStart: 7, leaderInode: 1))
    }
}
#endif
