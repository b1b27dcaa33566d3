#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension SystemdBoxTests {
    /// The package's life with systemd running: upgrades keep the items and the service, `dpkg -r` stops
    /// the service and keeps the items, `dpkg -P` removes its state directory.
    @Suite final class PackageLife {
        let box: SystemdBox

        init() async throws {
            box = try SystemdBox()
            try await box.ensureInstalled()
        }

        deinit { box.remove() }

        func dpkg(_ arguments: [String]) async throws {
            let result = try await box.run(["env", "DEBIAN_FRONTEND=noninteractive", "dpkg"] + arguments)
            #expect(result.status == 0, "dpkg \(arguments): \(result.stdout)\(result.stderr)")
        }

        func shown() async throws -> String {
            try await box.run(as: box.user, "\(SystemdBox.cli) show box-kept --field t").stdout
        }

        /// The same files as `deb`, with a higher version.
        func repacked() async throws -> String {
            let work = try await box.run(["mktemp", "-d"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try await box.run(["dpkg-deb", "-R", box.deb, "\(work)/tree"])
            let control = try await box.run(["cat", "\(work)/tree/DEBIAN/control"]).stdout
            let version = try #require(control.split(separator: "\n").first { $0.hasPrefix("Version: ") }).dropFirst("Version: ".count)
            try await box.run(["sed", "-i", "s/^Version: .*/Version: \(version)+box1/", "\(work)/tree/DEBIAN/control"])
            let built = try await box.run(["dpkg-deb", "--root-owner-group", "-b", "\(work)/tree", "\(work)/higher.deb"])
            try #require(built.status == 0, "\(built.stdout)\(built.stderr)")
            return "\(work)/higher.deb"
        }

        @Test func upgradesKeepItemsRemovalStopsTheServiceAndPurgeRemovesTheState() async throws {
            let uid = try await box.run(["id", "-u", box.user]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try await box.run(as: box.user, "\(SystemdBox.cli) reset box-kept")
            await #expect(try box.run(as: box.user, "echo '{\"t\":\"kept\"}' | \(SystemdBox.cli) store box-kept").status == 0)
            #expect(try await box.property("ActiveState") == "active")
            try await withCleanup { () async throws -> Void in
                // The same package again, then a higher version: the running service is stopped for the new
                // files and started by the next call; the items stay.
                try await dpkg(["-i", box.deb])
                #expect(try await shown() == "kept\n")
                let higher = try await repacked()
                try await dpkg(["-i", higher])
                let version = try await box.run(["dpkg-query", "-W", "-f", "${Version}", "biometrics-vault"]).stdout
                #expect(version.hasSuffix("+box1"), "\(version)")
                #expect(try await shown() == "kept\n")
                #expect(try await box.property("ActiveState") == "active")
                try await box.run(["rm", "-rf", (higher as NSString).deletingLastPathComponent])

                // Removed: the service stops and its unit is gone; every user's items stay on disk.
                try await dpkg(["-r", "biometrics-vault"])
                #expect(try await box.property("ActiveState") == "inactive")
                #expect(try await box.property("LoadState") == "not-found")
                #expect(try await box.run(["pgrep", "-u", "biometrics-vault"]).status == 1, "the service still runs")
                let kept = try await box.run(["test", "-d", "/var/lib/biometrics-vault/users/\(uid)"])
                #expect(kept.status == 0, "the user's items went with dpkg -r")

                // Installed again (the version lower than the one removed): the items read back.
                try await dpkg(["-i", box.deb])
                #expect(try await shown() == "kept\n")

                // Purged: the service stops and the state directory goes, with every user's items.
                try await dpkg(["-P", "biometrics-vault"])
                #expect(try await box.run(["test", "-e", "/var/lib/biometrics-vault"]).status == 1, "the state directory stayed after purge")
                #expect(try await box.run(["pgrep", "-u", "biometrics-vault"]).status == 1, "the service runs after purge")
                #expect(try await box.property("ActiveState") == "inactive")
            } cleanup: {
                _ = try? await box.ensureInstalled()
            }
        }
    }
}
#endif
