import BiometricsVault
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

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
        switch StdinLine.next() {
        case .end:
            throw CLIFailure.badInput("stdin ended before the \(kind.rawValue) (one per line: the current one first, then the new one)")
        case .tooLong(let failure):
            throw failure
        case .line(let line):
            guard !line.isEmpty else { throw CLIFailure.badInput("the \(kind.rawValue) on stdin is empty") }
            return line
        }
    }
}

/// One line of stdin, read with `read(2)` a byte at a time so that nothing after it is consumed (the
/// credentials JSON of `store` / `update` may follow the PIN line). A trailing "\r" is dropped. A line
/// longer than ``limit`` is refused whole, never cut. The bytes are zeroed when released.
enum StdinLine {
    /// The longest PIN or passphrase line accepted, in bytes (without its newline).
    static let limit = 65_536

    enum Outcome {
        case line(SecretBytes)
        /// End of input before any byte.
        case end
        case tooLong(CLIFailure)
    }

    static func next() -> Outcome {
        var bytes: [UInt8] = []
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var byte: UInt8 = 0
        var sawAny = false
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            sawAny = true
            if byte == UInt8(ascii: "\n") { break }
            // One more byte than the limit: it may be the "\r" of a line of exactly `limit` bytes.
            guard bytes.count <= limit else { return refuseTooLong() }
            bytes.append(byte)
        }
        guard sawAny else { return .end }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count <= limit else { return refuseTooLong() }
        return .line(SecretBytes(bytes))
    }

    private static func refuseTooLong() -> Outcome {
        let failure = CLIFailure.badInput(
            "the line on stdin is longer than \(limit) bytes, more than a PIN or passphrase may be; nothing was changed")
        refused.withLock { $0 = $0 ?? failure }
        return .tooLong(failure)
    }

    /// Why a store secret line was refused, if one was: the file store, which asked for it through a
    /// callback that cannot throw, then reports only "none was entered"; the CLI reports this instead.
    static func refusal() -> CLIFailure? {
        refused.withLock { $0 }
    }

    private static let refused = Mutex<CLIFailure?>(nil)
}

/// The store secret (`--pin-stdin` / `--passphrase-stdin`) of one invocation: the first line of stdin,
/// read when the file store asks for it, or else dropped before anything else reads stdin, so the input
/// has one layout whatever store is used (the line, then the credentials JSON for `store` / `update`).
final class StdinStoreSecret: Sendable {
    let pin: Bool
    let passphrase: Bool
    private let consumed = Mutex(false)

    init(pin: Bool, passphrase: Bool) {
        self.pin = pin
        self.passphrase = passphrase
    }

    /// How this invocation answers the file store's secret questions.
    var interaction: PlatformInteraction {
        let terminal = PlatformInteraction.terminal
        guard pin || passphrase else { return terminal }
        return PlatformInteraction(
            hasTerminal: terminal.hasTerminal, readSecret: terminal.readSecret, showMessage: terminal.showMessage,
            readStoreSecret: { kind, prompt in
                switch kind {
                case .tpmPIN: self.pin ? self.line() : terminal.readSecret(prompt)
                case .passphrase: self.passphrase ? self.line() : terminal.readSecret(prompt)
                }
            })
    }

    /// Drops the line if the store never asked for it.
    func finish() {
        guard pin || passphrase else { return }
        _ = line()
    }

    private func line() -> SecretBytes? {
        let first = consumed.withLock { consumed in
            defer { consumed = true }
            return !consumed
        }
        guard first else { return nil }
        switch StdinLine.next() {
        case .line(let line): return line
        case .end, .tooLong: return nil
        }
    }
}
