import ArgumentParser
import BiometricsVault
import Foundation

/// Everything the CLI writes: results on stdout, notices and errors on stderr.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func notice(_ text: String) {
        err("biometrics-vault: \(text)")
    }

    /// Prints a result: `json` as one line of JSON with `--json`, else `text` (when there is any).
    static func emit(_ options: GlobalOptions, json: JSONValue, text: String?) {
        if options.json {
            out(json.jsonText)
        } else if let text {
            out(text)
        }
    }

    /// Runs one verb: prints a failure and exits with its stable status.
    static func run(_ options: GlobalOptions, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let (status, code, message) = describe(error)
            if options.json {
                let report: JSONValue = .object([
                    "error": .object([
                        "code": .string(code), "exitCode": .integer(Int64(status.rawValue)), "message": .string(message),
                    ])
                ])
                err(report.jsonText)
            } else {
                err("biometrics-vault: error: \(message)")
            }
            throw ExitCode(status.rawValue)
        }
    }

    /// Status, code name and message of an error. Library errors are described by code and platform
    /// cause only (never secret bytes, by VaultError's contract).
    static func describe(_ error: any Error) -> (ExitStatus, String, String) {
        switch error {
        case let failure as CLIFailure:
            return (failure.status, failure.code, failure.message)
        case let error as VaultError:
            let status = ExitStatus(error)
            let detail = error.underlying.map { String(describing: $0) } ?? status.summary
            return (status, error.code.name, "\(detail) [\(error.code.name)]")
        case is CancellationError:
            return (.cancelled, "systemCancel", "cancelled")
        default:
            return (.failure, "failure", "unexpected \(type(of: error))")
        }
    }
}
