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
    /// `setup [--uninstall]`: installs (or removes) the PAM service file and the polkit action, as root.
    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "setup",
            abstract: "Install the PAM service file and the polkit policy (as root), or remove them with --uninstall.",
            discussion: """
                Installs /etc/pam.d/biometrics-vault and \
                /usr/share/polkit-1/actions/io.github.biometricsvault.policy from the package's Resources/linux.
                """)

        /// What `setup` installs: the packaged file name and where it goes (relative to --root).
        static let files: [(resource: String, destination: String)] = [
            ("biometrics-vault", "etc/pam.d/biometrics-vault"),
            ("io.github.biometricsvault.policy", "usr/share/polkit-1/actions/io.github.biometricsvault.policy"),
        ]

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Remove the installed files instead.")
        var uninstall = false

        @Option(help: ArgumentHelp("Directory holding the packaged files (default: <prefix>/share/biometrics-vault of an installed binary, else Resources/linux above the build).", valueName: "dir"))
        var resources: String?

        @Option(help: ArgumentHelp("Install below this directory instead of / (for packaging; no root needed).", valueName: "dir"))
        var root: String?

        func run() async throws {
            try await Console.run(options) {
                guard root != nil || geteuid() == 0 else {
                    throw CLIFailure(status: .permissionDenied, code: "permissionDenied", message: "setup must run as root (or with --root DIR)")
                }
                let base = URL(fileURLWithPath: root ?? "/")
                let fileManager = FileManager.default
                var done: [String] = []
                if uninstall {
                    for file in Self.files {
                        let target = base.appendingPathComponent(file.destination)
                        guard fileManager.fileExists(atPath: target.path) else { continue }
                        try Self.io("remove \(target.path)") { try fileManager.removeItem(at: target) }
                        done.append(target.path)
                    }
                } else {
                    let source = try resourceDirectory()
                    for file in Self.files {
                        let from = source.appendingPathComponent(file.resource)
                        let target = base.appendingPathComponent(file.destination)
                        try Self.io("install \(target.path)") {
                            let contents = try Data(contentsOf: from)
                            try fileManager.createDirectory(
                                at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
                                attributes: [.posixPermissions: 0o755])
                            try contents.write(to: target, options: .atomic)
                            try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
                        }
                        done.append(target.path)
                    }
                }
                let verb = uninstall ? "removed" : "installed"
                Console.emit(
                    options, json: .object([verb: .array(done.map { .string($0) })]),
                    text: done.isEmpty ? "nothing to remove" : done.map { "\(verb) \($0)" }.joined(separator: "\n"))
            }
        }

        /// The packaged files: --resources, else <prefix>/share/biometrics-vault (an installed binary),
        /// else Resources/linux found upward from the executable (a build in the source tree).
        private func resourceDirectory() throws -> URL {
            if let resources { return URL(fileURLWithPath: resources) }
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            var directory = executable.deletingLastPathComponent()
            var candidates = [directory.deletingLastPathComponent().appendingPathComponent("share/biometrics-vault")]
            for _ in 0..<5 {
                candidates.append(directory.appendingPathComponent("Resources/linux"))
                directory = directory.deletingLastPathComponent()
            }
            let found = candidates.first { candidate in
                Self.files.allSatisfy { file in
                    FileManager.default.fileExists(atPath: candidate.appendingPathComponent(file.resource).path)
                }
            }
            guard let found else {
                throw CLIFailure.notFound("packaged PAM/polkit files not found; pass --resources DIR (the package's Resources/linux)")
            }
            return found
        }

        private static func io(_ what: String, _ body: () throws -> Void) throws {
            do { try body() } catch {
                throw CLIFailure(status: .failure, code: "ioError", message: "cannot \(what)")
            }
        }
    }
}
