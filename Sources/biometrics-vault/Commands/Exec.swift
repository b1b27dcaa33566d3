import ArgumentParser
import BiometricsVault
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

extension BiometricsVaultCommand {
    /// `exec KEY --env NAME=FIELD ... -- COMMAND [ARGS...]`: runs COMMAND with fields of KEY in its environment.
    struct Exec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec",
            abstract: "Run COMMAND with fields of the credentials under KEY in its environment (one prompt for a protected item).",
            discussion: """
                Each --env NAME=FIELD sets the environment variable NAME to the top-level FIELD of the \
                credentials (a string raw, a number or boolean as its JSON text: what `show --field` prints). \
                The secrets go into COMMAND's environment only, never its arguments. biometrics-vault then \
                replaces itself with COMMAND (execve): signals reach COMMAND directly and its exit status is the \
                status. COMMAND gets the rest of the environment byte for byte, the signals the caller ignores \
                (nohup) still ignored, and the caller's signal mask. \
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
                let vault = try session.retrieveStored(item.key)
                let environment = environment
                try await Interrupts.cancellingOnInterrupt {
                    let readable = vault.kind == .locked ? try await vault.unlock() : vault
                    let fields = try EnvironmentMapping.values(of: readable.credentials, for: environment, key: vault.key)
                    values.withLock { $0 = fields }
                }
                // COMMAND is looked up on this process's PATH, before any --env value is merged in.
                let program = try ProgramLookup.resolve(command[0], path: RawEnvironment.value(of: "PATH"))
                let merged = RawEnvironment.entries(replacing: values.withLock { $0 })
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

extension EnvironmentMapping {
    /// The environment values `mappings` ask for, each field as `show --field` prints it: a string
    /// decoded, a number or boolean as its JSON text (the literal as stored: no digit is lost). The errors
    /// name the field, never a value.
    static func values(of credentials: JSONValue, for mappings: [EnvironmentMapping], key: String) throws(CLIFailure) -> [String: String] {
        guard case .object = credentials else {
            throw .badInput("the credentials under '\(key)' are not a JSON object: --env needs named fields")
        }
        var values: [String: String] = [:]
        for mapping in mappings {
            guard let value = credentials.member(named: mapping.field) else {
                throw .notFound("the credentials under '\(key)' have no field '\(mapping.field)'")
            }
            guard let text = value.scalarText else {
                throw .badInput("the field '\(mapping.field)' under '\(key)' is not a string, number or boolean")
            }
            guard !text.utf8.contains(0) else {
                throw .badInput("the field '\(mapping.field)' under '\(key)' contains NUL, which no environment variable can hold")
            }
            values[mapping.name] = text
        }
        return values
    }
}

/// Finding COMMAND on PATH and becoming it. Paths are bytes: a PATH entry that is not UTF-8 is searched
/// as it is.
enum ProgramLookup {
    /// The path `execve` gets (NUL-terminated): `name` itself when it holds a `/`, else the first
    /// executable on PATH (the raw bytes of `path`).
    static func resolve(_ name: String, path: [UInt8]?) throws(CLIFailure) -> [CChar] {
        if name.contains("/") { return cString(Array(name.utf8)) }
        var foundButNotExecutable = false
        let directories = (path ?? Array("/usr/local/bin:/usr/bin:/bin".utf8))
            .split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = cString((directory.isEmpty ? [UInt8(ascii: ".")] : Array(directory)) + [UInt8(ascii: "/")] + Array(name.utf8))
            var info = stat()
            guard stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return candidate }
            foundButNotExecutable = true
        }
        if foundButNotExecutable { throw notExecutable(name) }
        throw CLIFailure(status: .commandNotFound, code: "commandNotFound", message: "\(name): command not found")
    }

    /// Replaces this process with `program`; returns only the failure when `execve` fails. `environment`
    /// holds the `NAME=value` entries, byte for byte.
    static func replaceProcess(program: [CChar], arguments: [String], environment: [[UInt8]]) -> CLIFailure {
        // What this process changed must not leak into COMMAND: ignored signals and the signal mask are
        // inherited across execve (an ignored SIGPIPE would break `COMMAND | head`). What the caller set
        // is handed on, as if it had started COMMAND itself: a signal it ignored (`nohup`) stays
        // ignored, and COMMAND gets the caller's mask.
        for number in Int32(1)..<32 where number != SIGKILL && number != SIGSTOP {
            signal(number, ProcessHardening.wasIgnoredAtStart(number) ? SIG_IGN : SIG_DFL)
        }
        ThreadSignalMask.restoreInherited()
        ProcessHardening.restoreForExec()

        let argv = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { entry in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: entry.count + 1)
            for (index, byte) in entry.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[entry.count] = 0
            return copy
        } + [nil]
        let failure = program.withUnsafeBufferPointer { path in
            execve(path.baseAddress!, argv, envp)
            return errno
        }
        for pointer in argv { free(pointer) }
        for pointer in envp {
            if let pointer { memset(pointer, 0, strlen(pointer)) }
            pointer?.deallocate()
        }
        let name = String(decoding: program.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch failure {
        case ENOENT:
            return CLIFailure(status: .commandNotFound, code: "commandNotFound", message: "\(name): command not found")
        case EACCES, EPERM, ENOEXEC:
            return notExecutable(name)
        case E2BIG:
            // The kernel's limit is on argv and the environment together, the --env fields included.
            return CLIFailure(
                status: .commandNotExecutable, code: "commandNotExecutable",
                message: "\(name): cannot be run: \(FileDescriptorOutput.words(failure)) (errno \(failure)): its arguments and "
                    + "environment, with the --env fields, exceed the system's limit (getconf ARG_MAX; 128 KiB for one argument or variable)")
        default:
            return CLIFailure(
                status: .commandNotExecutable, code: "commandNotExecutable",
                message: "\(name): cannot be run: \(FileDescriptorOutput.words(failure)) (errno \(failure))")
        }
    }

    private static func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }

    private static func notExecutable(_ name: String) -> CLIFailure {
        CLIFailure(status: .commandNotExecutable, code: "commandNotExecutable", message: "\(name): cannot be run (permission denied or not a program)")
    }
}
