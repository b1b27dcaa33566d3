import BiometricsVaultJSON
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

extension CredentialsInputOptions {
    /// The most stdin/file bytes read: well above the vault's 64 KiB limit, so the vault reports
    /// `credentialsTooLarge` for anything between, and nothing unbounded is buffered.
    static let readLimit = 1 << 20

    /// Reads and parses the credentials JSON. Commands call it only after the key and the item's state
    /// were checked, so a bad command line never waits on a stdin that does not close.
    func readCredentials() throws(CLIFailure) -> JSONValue {
        let source: String
        let fd: Int32
        if let path = fromFile, path != "-" {
            source = "--from-file"
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .badInput("cannot read --from-file \(path): \(FileDescriptorOutput.words(errno))") }
        } else {
            source = "stdin"
            fd = STDIN_FILENO
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var data: [UInt8]
        if fd == STDIN_FILENO, isatty(fd) == 1 {
            // The secret is typed: no echo (TerminalEcho restores the terminal on every path, Ctrl-C too).
            // The prompt only once echo is off: the switch flushes pending input, so an answer typed as
            // soon as a prompt written earlier showed would be echoed and then lost.
            let typed = TerminalEcho.withEchoOff(fd) {
                Console.err("Type or paste the credentials JSON (not shown), then press Ctrl-D:")
                return readAll(fd)
            }
            guard let typed else {
                throw .badInput("cannot switch the terminal's echo off; pipe the credentials in instead")
            }
            data = try typed.get()
        } else {
            data = try readAll(fd).get()
        }
        defer { for index in data.indices { data[index] = 0 } }
        guard data.count <= Self.readLimit else { throw .badInput("\(source) is larger than 1 MiB") }
        return try JSONValue.parse(data, source: source)
    }

    /// Every byte up to EOF (or one past the limit), with `read(2)`.
    private func readAll(_ fd: Int32) -> Result<[UInt8], CLIFailure> {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        defer { for index in chunk.indices { chunk[index] = 0 } }
        while data.count <= Self.readLimit {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.badInput("cannot read \(fd == STDIN_FILENO ? "stdin" : "--from-file"): \(FileDescriptorOutput.words(errno))"))
            }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return .success(data)
    }
}

extension JSONValue {
    /// Parses JSON the CLI read from `source` (e.g. "stdin"). The one place that turns a
    /// ``JSONSyntaxError`` into the CLI's `badInput`: fixed words, the source and a byte offset.
    static func parse(_ bytes: [UInt8], source: String) throws(CLIFailure) -> JSONValue {
        do {
            return try parse(bytes)
        } catch {
            if error.reason == .noValue { throw .badInput("no credentials on \(source): expected a JSON value") }
            throw .badInput("\(source) is not valid JSON: \(error.description)")
        }
    }
}
