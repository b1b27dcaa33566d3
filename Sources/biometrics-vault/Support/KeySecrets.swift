import BiometricsVault
import Foundation

/// The PINs and passphrases the `key` verbs need: from stdin (`--pin-stdin`, `--passphrase-stdin`: one
/// line each, the current one first, then the new one) or asked on the terminal with echo off.
/// Never from argv or the environment.
final class KeySecrets {
    private let pinFromStdin: Bool
    private let passphraseFromStdin: Bool
    private var lines: [SecretBytes]?

    init(pinFromStdin: Bool, passphraseFromStdin: Bool) {
        self.pinFromStdin = pinFromStdin
        self.passphraseFromStdin = passphraseFromStdin
    }

    enum Kind: String {
        case pin = "TPM PIN"
        case passphrase = "passphrase"
    }

    /// The current PIN or passphrase of the store.
    func current(_ kind: Kind) throws -> SecretBytes {
        if fromStdin(kind) { return try nextLine(kind) }
        return try ask("Current \(kind.rawValue) of the file store: ", kind)
    }

    /// A new PIN or passphrase; on the terminal it is asked twice.
    func new(_ kind: Kind) throws -> SecretBytes {
        if fromStdin(kind) { return try nextLine(kind) }
        let first = try ask("New \(kind.rawValue) for the file store: ", kind)
        let second = try ask("Repeat the new \(kind.rawValue): ", kind)
        guard first == second else { throw CLIFailure.badInput("the two \(kind.rawValue)s differ; nothing was changed") }
        return first
    }

    private func fromStdin(_ kind: Kind) -> Bool {
        switch kind {
        case .pin: pinFromStdin
        case .passphrase: passphraseFromStdin
        }
    }

    private func ask(_ prompt: String, _ kind: Kind) throws -> SecretBytes {
        let flag = kind == .pin ? "--pin-stdin" : "--passphrase-stdin"
        guard let answer = PlatformInteraction.terminal.readSecret(prompt) else {
            throw CLIFailure(
                status: .cancelled, code: "userCancel",
                message: "no \(kind.rawValue) entered (no terminal, or cancelled); use \(flag) to read it from stdin")
        }
        guard !answer.isEmpty else { throw CLIFailure.badInput("the \(kind.rawValue) is empty") }
        return answer
    }

    private func nextLine(_ kind: Kind) throws -> SecretBytes {
        if lines == nil { lines = Self.readStdinLines() }
        guard var remaining = lines, !remaining.isEmpty else {
            throw CLIFailure.badInput("stdin ended before the \(kind.rawValue) (one per line: the current one first, then the new one)")
        }
        let line = remaining.removeFirst()
        lines = remaining
        guard !line.isEmpty else { throw CLIFailure.badInput("the \(kind.rawValue) on stdin is empty") }
        return line
    }

    /// All of stdin, split into lines (a trailing "\r" dropped); the raw bytes are zeroed afterwards.
    private static func readStdinLines() -> [SecretBytes] {
        var data = FileHandle.standardInput.readDataToEndOfFile()
        defer { data.resetBytes(in: 0..<data.count) }
        var result: [SecretBytes] = []
        data.withUnsafeBytes { raw in
            for var line in raw.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                result.append(SecretBytes(line))
            }
        }
        if result.last?.isEmpty == true { result.removeLast() }
        return result
    }
}
