// libFuzzer target: `ProcessStat.parse`, the package's reader of `/proc/PID/stat` (the unlock-window agent's, the vault service's and polkit's subjects'), from which
// it takes a peer's session and controlling terminal: the scope whose windows and store keys the peer may
// use. The kernel writes the line, but its second field is the process's name (`comm`), which the process
// sets itself (`prctl(PR_SET_NAME)`, up to 15 bytes, any byte but NUL, written unescaped), so every peer
// writes part of what the agent parses about it.
//
// Invariants, for every input:
// - nothing traps (AddressSanitizer is on);
// - mode 0: the parse agrees with the format spelled over bytes (the name ends at the last `)` byte; the
//   fields after it are separated by spaces; state, parent, session, terminal and start time are fields
//   3, 4, 6, 7 and 22);
// - mode 1: for a line the kernel would write, whatever name (up to 15 bytes, no NUL) the process gave
//   itself, the parse gives exactly the kernel's parent, session, terminal, start time and state.
//
// The first input byte picks the mode (mod 2); in mode 1, a name field and the numbers follow.
#if os(Linux)
import BiometricsVaultProcess
import FuzzSupport

/// The fields after the last `)` byte, or `nil` when there are too few of them or one does not parse.
func expectedStat(_ bytes: [UInt8]) -> (state: Character, parent: Int, session: Int, terminal: Int, start: UInt64)? {
    guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = bytes[(close + 1)...].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
    guard fields.count > 19, let state = fields[0].first, let parent = Int(fields[1]), let session = Int(fields[3]),
        let terminal = Int(fields[4]), let start = UInt64(fields[19])
    else { return nil }
    return (state, parent, session, terminal, start)
}

func checkLine(_ bytes: [UInt8]) {
    // As ProcessStat.read decodes what it read.
    let parsed = ProcessStat.parse(String(decoding: bytes, as: UTF8.self))
    let expected = expectedStat(bytes)
    fuzzRequire(
        parsed?.session == expected?.session && parsed?.terminal == expected?.terminal && parsed?.startTime == expected?.start
            && parsed?.state == expected?.state && parsed?.parent == expected?.parent,
        "parsed \(String(describing: parsed)), expected \(String(describing: expected)) from \(String(decoding: bytes, as: UTF8.self).debugDescription)")
}

/// A line as the kernel's `do_task_stat` writes it (52 fields), with `name` as the process's comm.
func checkKernelLine(_ input: inout FuzzInput) {
    let name = Array(input.field().filter { $0 != 0 }.prefix(15))
    let states = Array("RSDTtXZPIWK".utf8)
    let state = states[Int(input.byte()) % states.count]
    let session = Int(input.integer(bytes: 4) & 0x3FFF_FFFF)
    let terminal = Int(input.integer(bytes: 4) & 0x3FFF_FFFF)
    let start = input.integer(bytes: 8)
    var fields = (4...52).map { String($0 * 7) }  // fields 4...52, each some number
    fields[6 - 4] = String(session)
    fields[7 - 4] = String(terminal)
    fields[22 - 4] = String(start)
    let line = Array("1234 (".utf8) + name + Array(") ".utf8) + [state] + Array((" " + fields.joined(separator: " ") + "\n").utf8)
    checkLine(line)
    let parsed = ProcessStat.parse(String(decoding: line, as: UTF8.self))
    fuzzRequire(
        parsed?.session == session && parsed?.terminal == terminal && parsed?.startTime == start
            && parsed?.state == Character(Unicode.Scalar(state)) && parsed?.parent == 4 * 7,
        "the name \(String(decoding: name, as: UTF8.self).debugDescription) changes what is read: \(String(describing: parsed))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProcessStat(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    if input.byte() % 2 == 0 {
        checkLine(input.rest())
    } else {
        checkKernelLine(&input)
    }
    return 0
}

runLibFuzzer(fuzzProcessStat)
#endif
