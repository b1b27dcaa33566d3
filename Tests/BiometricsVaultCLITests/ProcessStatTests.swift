#if os(Linux)
import BiometricsVaultProcess
import BiometricsVaultTestSupport
import Testing

/// The agent reads a peer's session and terminal (its scope) from `/proc/PID/stat`, a line whose second
/// field is the process's own name (`comm`), which the process sets (`prctl(PR_SET_NAME)`, 15 bytes, any
/// byte but NUL) and the kernel writes unescaped. Whatever the name, the fields read are the kernel's.
@Suite(.onTestThreads) struct ProcessStatTests {
    /// A line as the kernel writes it: pid, `(name)`, state, then fields 4 to 52.
    static func line(name: String, session: Int, terminal: Int, start: UInt64) -> String {
        var fields = (4...52).map { String($0 * 7) }
        fields[6 - 4] = String(session)
        fields[7 - 4] = String(terminal)
        fields[22 - 4] = String(start)
        return "4242 (\(name)) S " + fields.joined(separator: " ") + "\n"
    }

    /// Found by Fuzz/FuzzProcessStat: a name ending in a prepended concatenation mark (U+0600..U+0605,
    /// U+06DD, U+070F, U+08E2, U+110BD...) joins the closing parenthesis into one Character, so a parse by
    /// Characters missed it: the stat was unreadable, or, with a `)` earlier in the name, the fields
    /// after that one, which the name spells, were taken for the kernel's (here session 7, terminal 5).
    @Test(arguments: ["bash", ")", "a) b", "\u{600}", "x\u{600}", ")S 1 2 7 5 \u{600}", ")\u{110BD}", "e\u{301})\u{301}", ") \u{301}"])
    func fieldsAreTheKernelsWhateverTheName(name: String) {
        let parsed = ProcessStat.parse(Self.line(name: name, session: 31337, terminal: 34817, start: 987_654))
        #expect(parsed?.session == 31337, "\(String(describing: parsed))")
        #expect(parsed?.terminal == 34817, "\(String(describing: parsed))")
        #expect(parsed?.startTime == 987_654, "\(String(describing: parsed))")
        #expect(parsed?.state == "S", "\(String(describing: parsed))")
    }

    /// The same with the kernel's own line: a process that named itself so reads back its real session.
    @Test(.needs(UnlockWindowCLITests.python)) func aProcessNamedToSpoofItsScopeReadsAsItself() async throws {
        let script = """
            import ctypes, os, sys
            ctypes.CDLL(None).prctl(15, ctypes.c_char_p(")S 1 2 7 5 \\u0600".encode()), 0, 0, 0)
            sys.stdout.buffer.write(open("/proc/self/stat", "rb").read())
            print(os.getsid(0))
            """
        let output = try await Shell.run("/usr/bin/python3", ["-c", script])
        let lines = output.stdout.split(separator: "\n")
        try #require(lines.count == 2 && output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(lines[0].contains(")S 1 2 7 5 \u{600})"), "the kernel wrote the name unescaped: \(lines[0])")
        let parsed = ProcessStat.parse(String(lines[0]))
        #expect(parsed?.session == Int(lines[1]), "\(String(describing: parsed)) for session \(lines[1])")
        #expect(parsed?.terminal != 5, "\(String(describing: parsed))")
    }
}
#endif
