// The one CLI type `JSONValue.parse` needs besides Foundation. The real `CLIFailure` lives in
// Sources/biometrics-vault/Support/ExitStatus.swift, which imports ArgumentParser and the library; this
// copy of its shape lets scripts/fuzz.sh compile the CLI's real JSONValue.swift on its own. If JSONValue
// starts using more of CLIFailure, the fuzz build fails and this file grows with it.
struct CLIFailure: Error, Sendable {
    var code: String
    var message: String

    static func badInput(_ message: String) -> CLIFailure { CLIFailure(code: "badInput", message: message) }
}
