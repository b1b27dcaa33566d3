// libFuzzer target: the CLI's config file (`CLIConfigFile.parse`, `$XDG_CONFIG_HOME/biometrics-vault/config`,
// which another program may have written), the duration parser it and `--unlock-window` use
// (`UnlockWindowDuration.seconds`), and `UnlockWindowSetting.resolve` with `$BIOMETRICS_VAULT_UNLOCK_WINDOW`.
//
// Invariants, for every input:
// - nothing traps (AddressSanitizer is on);
// - config: at most `maximumNotices` notices plus one that counts the rest; each starts with the path
//   as shown, is of bounded length, and holds no character that could drive a terminal (C0, DEL, C1,
//   U+2028/2029, bidi controls) whatever the file, path or variable held; a window is off (`nil`) or
//   1...86,400 s, and set only by a valid line; a line appended after the file decides (the later line
//   counts) without changing the notices, and a blank line appended changes nothing;
// - duration: the result is the one an independent spelling of the format gives (`N`, `Ns`, `Nm`, `Nh`
//   with ASCII digits and unit in either case, at most 24 h; `0` or `off` turns windows off), a refusal
//   carries the text as given, and an accepted duration printed as seconds (and as minutes or hours when
//   whole) parses back to itself;
// - resolve: the variable decides when it is valid, else the config file; one notice more for an invalid
//   variable, and no notice holds a control character.
//
// The first input byte picks the mode (mod 3): 0, a path field and the file; 1, a duration; 2, the
// variable's field and a file.
#if os(Linux)
import BiometricsVaultAgent
import FuzzSupport

/// The scalars `CLIConfigFile.displayed` escapes (Console.isDeceptive spells the same set).
func isDeceptive(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
    default: false
    }
}

/// `path`: the file's, which each notice names; `nil` for the setting's notices, which are the file's
/// and one more for the variable.
func checkNotices(_ notices: [String], path: String?) {
    fuzzRequire(notices.count <= CLIConfigFile.maximumNotices + (path == nil ? 2 : 1), "\(notices.count) notices")
    let shownPath = path.map { CLIConfigFile.displayed($0, limit: nil) }
    for notice in notices {
        fuzzRequire(!notice.unicodeScalars.contains(where: isDeceptive), "a notice holds a control character: \(notice.debugDescription)")
        fuzzRequire(notice.unicodeScalars.count <= (shownPath?.unicodeScalars.count ?? 0) + 700, "a notice of \(notice.unicodeScalars.count) scalars")
        if let shownPath { fuzzRequire(notice.hasPrefix(shownPath + ":"), "a notice does not name the file: \(notice.debugDescription)") }
    }
}

func checkConfig(_ text: String, path: String) -> CLIConfigFile {
    let file = CLIConfigFile.parse(text, path: path)
    checkNotices(file.notices, path: path)
    if let seconds = file.unlockWindowSeconds { fuzzRequire((1...86_400).contains(seconds), "a window of \(seconds) s") }
    fuzzRequire(file.setsUnlockWindow || file.unlockWindowSeconds == nil, "a window set by no valid line")
    fuzzRequire(CLIConfigFile.parse(text + "\n", path: path) == file, "a blank line at the end changes the file's meaning")
    let later = CLIConfigFile.parse(text + "\n\(CLIConfigFile.unlockWindowKey) = 5m\n", path: path)
    fuzzRequire(later.unlockWindowSeconds == 300 && later.setsUnlockWindow, "a later line does not decide")
    fuzzRequire(later.notices == file.notices, "a valid line at the end changes the notices")
    return file
}

/// `UnlockWindowDuration`'s format spelled over ASCII bytes: the seconds (`nil`: off), or `nil` when refused.
func expectedDuration(_ text: String) -> Int?? {
    let bytes = Array(text.utf8)
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return .none }
    let lower = bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    if lower == Array("off".utf8) { return .some(nil) }
    var digits = lower[...]
    var unit = 1
    switch lower.last {
    case UInt8(ascii: "s"): digits = digits.dropLast()
    case UInt8(ascii: "m"): (digits, unit) = (digits.dropLast(), 60)
    case UInt8(ascii: "h"): (digits, unit) = (digits.dropLast(), 3600)
    default: break
    }
    guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return .none }
    let significant = digits.drop { $0 == 0x30 }
    guard significant.count <= 6 else { return .none }
    let count = significant.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    guard count * unit <= 86_400 else { return .none }
    return .some(count == 0 ? nil : count * unit)
}

func checkDuration(_ text: String) {
    let expected = expectedDuration(text)
    switch UnlockWindowDuration.seconds(text) {
    case .success(let seconds):
        fuzzRequire(expected == .some(seconds), "'\(text.debugDescription)' is \(String(describing: seconds)) s, expected \(String(describing: expected))")
        guard let seconds else { return }
        var spellings = ["\(seconds)", "\(seconds)s"]
        if seconds % 60 == 0 { spellings.append("\(seconds / 60)m") }
        if seconds % 3600 == 0 { spellings.append("\(seconds / 3600)H") }
        for spelling in spellings {
            fuzzRequire(UnlockWindowDuration.seconds(spelling) == .success(seconds), "\(spelling) does not parse back to \(seconds)")
        }
    case .failure(let error):
        fuzzRequire(expected == nil, "'\(text.debugDescription)' refused, expected \(String(describing: expected))")
        fuzzRequire(sameScalars(error.text, text), "the refusal changed the text")
    }
}

func checkResolve(variable: String, file text: String) {
    let path = "/home/u/.config/biometrics-vault/config"
    let file = checkConfig(text, path: path)
    let setting = UnlockWindowSetting.resolve(option: nil, environment: variable, configFile: file)
    checkNotices(setting.notices, path: nil)
    if !variable.isEmpty, case .success(let seconds) = UnlockWindowDuration.seconds(variable) {
        fuzzRequire(setting.source == .environment && setting.seconds == seconds && setting.notices.isEmpty, "the variable does not decide")
    } else {
        fuzzRequire(setting.seconds == file.unlockWindowSeconds, "the config file does not decide")
        fuzzRequire(setting.source == (file.setsUnlockWindow ? .configFile : .none), "source \(setting.source)")
        fuzzRequire(setting.notices.count == file.notices.count + (variable.isEmpty ? 0 : 1), "\(setting.notices.count) notices")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    // The file and the variable reach the CLI as bytes, decoded leniently (AgentSocket.readSmallFile).
    switch input.byte() % 3 {
    case 0:
        let path = String(decoding: input.field(), as: UTF8.self)
        _ = checkConfig(String(decoding: input.rest(), as: UTF8.self), path: path)
    case 1:
        checkDuration(String(decoding: input.rest(), as: UTF8.self))
    default:
        let variable = String(decoding: input.field(), as: UTF8.self)
        checkResolve(variable: variable, file: String(decoding: input.rest(), as: UTF8.self))
    }
    return 0
}

runLibFuzzer(fuzzConfigFile)
#endif
