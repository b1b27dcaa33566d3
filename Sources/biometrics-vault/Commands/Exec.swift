import ArgumentParser
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

extension BiometricsVaultCommand {
    /// `exec KEY --env NAME=FIELD ... -- COMMAND [ARGS...]`: runs COMMAND with fields of KEY in its environment.
    struct Exec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec",
            abstract: "Run COMMAND with fields of the credentials under KEY in its environment (one prompt for a protected item).",
            discussion: """
                Each --env NAME=FIELD sets the environment variable NAME to the top-level FIELD of the \
                credentials (a string raw, a number or boolean as its JSON text). The secrets go into \
                COMMAND's environment only, never its arguments. biometrics-vault then replaces itself with \
                COMMAND (execve): signals reach COMMAND directly and its exit status is the status. \
                Exits 127 when COMMAND is not found, 126 when it cannot be run.

                EXAMPLE:
                  biometrics-vault exec github --env GITHUB_TOKEN=token -- gh repo list
                """)

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        @Option(
            name: .customLong("env"),
            help: ArgumentHelp("Set the environment variable NAME to the credentials' top-level FIELD (repeatable).", valueName: "NAME=FIELD"))
        var environment: [EnvironmentMapping] = []

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The command to run and its arguments, after --.", valueName: "command"))
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { throw ValidationError("Missing the command to run: put it after --.") }
            guard !environment.isEmpty else { throw ValidationError("Missing --env NAME=FIELD: say which fields to pass.") }
        }

        func run() async throws {
            let values = LockedValue<[String: String]>([:])
            try await Console.run(options) {
                let session = Session(options: options, probesAvailability: false)
                let vault = try VaultFactory<ExecCredentials>.retrieveVaultOrThrow(key: item.key, configuration: session.configuration)
                guard vault.kind != .empty else {
                    if vault.invalidation == .biometryChanged {
                        throw VaultError(
                            .biometryChanged,
                            underlying: .message("'\(vault.key)' was invalidated because the enrolled fingers changed; store it again"))
                    }
                    throw CLIFailure.notFound("nothing stored under '\(vault.key)'")
                }
                let environment = environment
                try await Interrupts.cancellingOnInterrupt {
                    let readable = vault.kind == .locked ? try await vault.unlock() : vault
                    let fields = try readable.credentials.fields(for: environment, key: vault.key)
                    values.withLock { $0 = fields }
                }
                var merged = ProcessInfo.processInfo.environment
                // COMMAND is looked up on this process's PATH, before any --env value is merged in.
                let program = try ProgramLookup.resolve(command[0], path: merged["PATH"])
                for (name, value) in values.withLock({ $0 }) { merged[name] = value }
                throw ProgramLookup.replaceProcess(program: program, arguments: command, environment: merged)
            }
        }
    }
}

/// `--env NAME=FIELD`.
struct EnvironmentMapping: ExpressibleByArgument, Sendable {
    let name: String
    let field: String

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        let name = String(argument[..<equals])
        let field = String(argument[argument.index(after: equals)...])
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic),
            name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }),
            !field.isEmpty
        else { return nil }
        self.name = name
        self.field = field
    }
}

/// The credentials as `exec` reads them: the top-level members of a JSON object, each as the text an
/// environment variable gets. Its own type (not the CLI's JSON value), decoding only what `exec` needs.
struct ExecCredentials: Codable, Sendable {
    enum Field: Sendable {
        case text(String)
        /// An object, array or null: no single environment value.
        case unsupported
    }

    /// `nil` when the credentials are not a JSON object.
    let fields: [String: Field]?

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard let container = try? decoder.container(keyedBy: Name.self) else {
            fields = nil
            return
        }
        var fields: [String: Field] = [:]
        for name in container.allKeys {
            if let value = try? container.decode(String.self, forKey: name) {
                fields[name.stringValue] = .text(value)
            } else if let value = try? container.decode(Int64.self, forKey: name) {
                fields[name.stringValue] = .text(String(value))
            } else if let value = try? container.decode(Double.self, forKey: name) {
                fields[name.stringValue] = .text(String(value))
            } else if let value = try? container.decode(Bool.self, forKey: name) {
                fields[name.stringValue] = .text(value ? "true" : "false")
            } else {
                fields[name.stringValue] = .unsupported
            }
        }
        self.fields = fields
    }

    /// Never stored by `exec`; encodes the text fields only.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for case (let name, .text(let value)) in fields ?? [:] {
            try container.encode(value, forKey: Name(stringValue: name))
        }
    }

    /// The environment values `mappings` ask for; the errors name the field, never a value.
    func fields(for mappings: [EnvironmentMapping], key: String) throws(CLIFailure) -> [String: String] {
        guard let fields else { throw .badInput("the credentials under '\(key)' are not a JSON object: --env needs named fields") }
        var values: [String: String] = [:]
        for mapping in mappings {
            switch fields[mapping.field] {
            case .text(let value)?:
                guard !value.contains("\0") else {
                    throw .badInput("the field '\(mapping.field)' under '\(key)' contains NUL, which no environment variable can hold")
                }
                values[mapping.name] = value
            case .unsupported?:
                throw .badInput("the field '\(mapping.field)' under '\(key)' is not a string, number or boolean")
            case nil:
                throw .notFound("the credentials under '\(key)' have no field '\(mapping.field)'")
            }
        }
        return values
    }
}

/// Finding COMMAND on PATH and becoming it.
enum ProgramLookup {
    /// The path `execve` gets: `name` itself when it holds a `/`, else the first executable on PATH.
    static func resolve(_ name: String, path: String?) throws(CLIFailure) -> String {
        if name.contains("/") { return name }
        var foundButNotExecutable = false
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            var info = stat()
            guard stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return candidate }
            foundButNotExecutable = true
        }
        if foundButNotExecutable { throw notExecutable(name) }
        throw CLIFailure(status: .commandNotFound, code: "commandNotFound", message: "\(name): command not found")
    }

    /// Replaces this process with `program`; returns only the failure when `execve` fails.
    static func replaceProcess(program: String, arguments: [String], environment: [String: String]) -> CLIFailure {
        // What this process changed must not leak into COMMAND: ignored signals and the signal mask are
        // inherited across execve (an ignored SIGPIPE would break `COMMAND | head`).
        for number in Int32(1)..<32 where number != SIGKILL && number != SIGSTOP {
            signal(number, SIG_DFL)
        }
        ThreadSignalMask.acceptAll()
        ProcessHardening.restoreForExec()

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(program, argv, envp)
        let failure = errno
        for pointer in argv { free(pointer) }
        for pointer in envp {
            if let pointer { memset(pointer, 0, strlen(pointer)) }
            free(pointer)
        }
        if failure == ENOENT {
            return CLIFailure(status: .commandNotFound, code: "commandNotFound", message: "\(program): command not found")
        }
        return notExecutable(program)
    }

    private static func notExecutable(_ name: String) -> CLIFailure {
        CLIFailure(status: .commandNotExecutable, code: "commandNotExecutable", message: "\(name): cannot be run (permission denied or not a program)")
    }
}
