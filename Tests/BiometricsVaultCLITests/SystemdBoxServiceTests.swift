#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension SystemdBoxTests {
    /// The packaged unit as systemd runs it: started by D-Bus activation with its hardening, idle exit
    /// and activation again, restarts and kills while a user writes, and its journal.
    @Suite final class ServiceUnit {
        let box: SystemdBox

        init() async throws {
            box = try SystemdBox()
            try await box.ensureInstalled()
        }

        deinit { box.remove() }

        /// The `[Service]` lines of the installed unit, as `(key, value)`.
        func unitLines() async throws -> [(key: String, value: String)] {
            let text = try await box.run(["cat", "/usr/lib/systemd/system/\(SystemdBox.unit)"]).stdout
            let section = text.components(separatedBy: "[Service]").dropFirst().first ?? ""
            return section.split(separator: "\n").compactMap { line in
                guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<equals]), String(line[line.index(after: equals)...]))
            }
        }

        @Test func aCallActivatesTheUnitWithEveryLineOfItsHardening() async throws {
            try await box.stopService()
            let doctor = try await box.run(as: box.user, "\(SystemdBox.cli) doctor")
            #expect(doctor.stdout.contains("auto picks: store service; authenticator service"), "\(doctor.stdout)\(doctor.stderr)")
            #expect(try await box.property("ActiveState") == "active")
            let pid = try #require(try await box.mainPID(), "activation did not start the unit")

            // Every line of the unit's [Service] section, as systemd applied it.
            let lines = try await unitLines()
            #expect(lines.count >= 30, "\(lines)")
            for (key, value) in lines {
                let shown = try await box.property(key)
                if key == "ExecStart" {
                    #expect(shown.contains("argv[]=\(value) ;"), "ExecStart=\(value): systemd shows \(shown)")
                } else {
                    #expect(shown == value || shown.split(separator: "\n").contains(Substring(value)), "\(key)=\(value): systemd shows \(shown)")
                }
            }

            // And as the kernel sees the process: its own user, no capability, no new privileges, a
            // seccomp filter, no core dumps, a read-only system, no home directories, a /tmp of its own.
            let uid = try await box.run(["id", "-u", "biometrics-vault"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let status = try await box.run(["cat", "/proc/\(pid)/status"]).stdout
            func field(_ name: String) -> String? {
                status.split(separator: "\n").first { $0.hasPrefix("\(name):") }.map {
                    $0.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace).joined(separator: " ")
                }
            }
            #expect(field("Uid") == Array(repeating: uid, count: 4).joined(separator: " "), "\(status)")
            for capabilities in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
                #expect(field(capabilities) == "0000000000000000", "\(capabilities): \(field(capabilities) ?? "none")")
            }
            #expect(field("NoNewPrivs") == "1")
            #expect(field("Seccomp") == "2")
            let limits = try await box.run(["cat", "/proc/\(pid)/limits"]).stdout
            #expect(limits.split(separator: "\n").contains {
                $0.hasPrefix("Max core file size") && $0.split(whereSeparator: \.isWhitespace).dropFirst(4).prefix(2) == ["0", "0"]
            }, "\(limits)")
            let mounts = try await box.run(["cat", "/proc/\(pid)/mountinfo"]).stdout.split(separator: "\n").map {
                $0.split(separator: " ").map(String.init)
            }
            func options(_ point: String) -> [String] { mounts.last { $0.count > 5 && $0[4] == point }.map { $0[5].components(separatedBy: ",") } ?? [] }
            #expect(options("/").contains("ro"), "/ is writable")
            #expect(options("/usr").contains("ro") || (options("/usr").isEmpty && options("/").contains("ro")))
            #expect(options("/home").contains("ro") && options("/root").contains("ro"), "the home directories are reachable")
            #expect(options("/var/lib/biometrics-vault").contains("rw"), "the state directory is not writable")
            let ownTmp = try await box.run(["stat", "-c", "%d:%i", "/proc/\(pid)/root/tmp", "/tmp"]).stdout.split(separator: "\n")
            #expect(ownTmp.count == 2 && ownTmp[0] != ownTmp[1], "the service's /tmp is the box's: \(ownTmp)")
        }

        /// With a short idle time (a drop-in, as an administrator would set it): the service exits, systemd
        /// records a clean stop, and the next call starts it again.
        @Test func theServiceExitsWhenIdleAndTheNextCallStartsItAgain() async throws {
            let dropIn = "/run/systemd/system/\(SystemdBox.unit).d"
            try await box.run(["mkdir", "-p", dropIn])
            try await box.run(["tee", "\(dropIn)/idle.conf"], stdin: "[Service]\nExecStart=\nExecStart=\(SystemdBox.cli) service --idle-exit 2\n")
            try await withCleanup { () async throws -> Void in
                try await box.run(["systemctl", "daemon-reload"])
                try await box.stopService()
                let cursor = try await box.journalCursor()
                await #expect(try box.run(as: box.user, "echo '{\"n\":1}' | \(SystemdBox.cli) store box-idle").status == 0)
                let first = try #require(try await box.mainPID())
                var state = ""
                for _ in 0..<300 {
                    state = try await box.property("ActiveState")
                    if state == "inactive" { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(state == "inactive", "the idle service still runs")
                #expect(try await box.property("Result") == "success")
                let messages = try await box.journal(after: cursor).compactMap { $0["MESSAGE"] as? String }
                #expect(messages.contains { $0.contains("idle for 2") && $0.contains("exiting") }, "\(messages)")
                let shown = try await box.run(as: box.user, "\(SystemdBox.cli) show box-idle --field n")
                #expect(shown.stdout == "1\n", "\(shown.stdout)\(shown.stderr)")
                let second = try await box.mainPID()
                #expect(second != nil && second != first, "the next call did not start the service again")
                try await box.run(as: box.user, "\(SystemdBox.cli) reset box-idle")
            } cleanup: {
                _ = try? await box.run(["rm", "-rf", dropIn])
                _ = try? await box.run(["systemctl", "daemon-reload"])
            }
        }

        /// 200 updates of one item by a user while the unit is restarted by systemd twice and its main
        /// process killed twice: each update is read back, and no read, nor the end, shows a value older
        /// than the last one the service acknowledged.
        @Test func restartsAndKillsDuringUpdatesLoseNothingAcknowledged() async throws {
            try await box.run(as: box.user, "echo '{\"v\":0}' | \(SystemdBox.cli) store box-durable")
            let log = "/tmp/box-durable-\(getpid())"
            // `acked` is the last acknowledged update; an older value read back is written down.
            let loop = """
                B=\(SystemdBox.cli); acked=0; rm -f \(log); for i in $(seq 200); do
                  if echo "{\\"v\\":$i}" | $B update box-durable >/dev/null 2>&1; then acked=$i; echo "acked $i" >> \(log); else echo "refused $i" >> \(log); fi
                  v=$($B show box-durable --field v 2>/dev/null) && [ "$v" -lt "$acked" ] && echo "older $v after $acked" >> \(log)
                done; echo done >> \(log)
                """
            let box = self.box
            let writer = Task { try await box.run(as: box.user, loop) }
            func acknowledged() async throws -> Int {
                let text = try await box.run(["cat", log]).stdout
                return text.split(separator: "\n").filter { $0.hasPrefix("acked ") }.compactMap { Int($0.dropFirst(6)) }.last ?? 0
            }
            var interruptions: [String] = []
            for (threshold, how) in [(30, "restart"), (70, "kill"), (110, "restart"), (150, "kill")] {
                while try await acknowledged() < threshold {
                    if try await box.run(["grep", "-qx", "done", log]).status == 0 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                if how == "restart" {
                    await #expect(try box.run(["systemctl", "restart", SystemdBox.unit]).status == 0)
                } else if let pid = try await box.mainPID() {
                    await #expect(try box.run(["kill", "-9", "\(pid)"]).status == 0)
                }
                interruptions.append("\(how) at \(try await acknowledged())")
            }
            _ = try await writer.value
            let text = try await box.run(["cat", log]).stdout
            try await box.run(["rm", "-f", log])
            let acked = try #require(text.split(separator: "\n").filter { $0.hasPrefix("acked ") }.compactMap { Int($0.dropFirst(6)) }.last)
            #expect(text.contains("done"), "\(text)")
            #expect(!text.contains("older"), "\(text.split(separator: "\n").filter { $0.hasPrefix("older") })")
            #expect(acked >= 150, "only \(acked) updates acknowledged (\(interruptions))")
            let shown = try await box.run(as: box.user, "\(SystemdBox.cli) show box-durable --field v")
            let value = Int(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(value != nil && value! >= acked && value! <= 200, "the item holds \(shown.stdout)\(shown.stderr), the last acknowledged update was \(acked)")
            #expect(try await box.property("NRestarts") == "0", "systemd restarted the unit by itself")
            try await box.run(as: box.user, "\(SystemdBox.cli) reset box-durable")
        }

        /// Each request is in the unit's journal and in the user's `audit`, the same entry in both.
        @Test func theAuditIsInTheJournalAndInAudit() async throws {
            let cursor = try await box.journalCursor()
            let key = "box-audit-\(getpid())"
            try await box.run(as: box.user, "echo '{\"t\":\"x\"}' | \(SystemdBox.cli) store \(key) && \(SystemdBox.cli) show \(key) >/dev/null")
            let journal = try await box.journal(after: cursor).compactMap { $0["MESSAGE"] as? String }.filter { $0.hasPrefix("audit: ") }
            let read = try #require(journal.first { $0.contains("\"item\":\"biometrics-vault/\(key)\"") && $0.contains("\"result\":\"released\"") },
                "no audit entry of the read in the journal: \(journal)")
            let entry = try #require((try? JSONSerialization.jsonObject(with: Data(read.dropFirst("audit: ".count).utf8))) as? [String: Any])
            #expect(entry["event"] as? String == "read")
            let audit = try await box.run(as: box.user, "\(SystemdBox.cli) audit --json --since 5m")
            let entries = (try? JSONSerialization.jsonObject(with: Data(audit.stdout.utf8))) as? [[String: Any]] ?? []
            #expect(entries.contains { $0["item"] as? String == entry["item"] as? String && $0["result"] as? String == "released"
                && $0["time"] as? Int == entry["time"] as? Int && $0["pid"] as? Int == entry["pid"] as? Int }, "\(audit.stdout)\(audit.stderr)")
            try await box.run(as: box.user, "\(SystemdBox.cli) reset \(key)")
        }

        /// One run of the service, from its activation to its stop: every line it wrote to the journal is
        /// one of its own (its start, its audit, its exit), and systemd says nothing worse than a notice.
        @Test func theJournalOfOneRunHoldsOnlyTheServicesOwnLines() async throws {
            try await box.stopService()
            let cursor = try await box.journalCursor()
            try await box.run(as: box.user, "echo '{\"t\":\"x\"}' | \(SystemdBox.cli) store box-journal && \(SystemdBox.cli) show box-journal && \(SystemdBox.cli) reset box-journal")
            let pid = try #require(try await box.mainPID())
            try await box.stopService()
            let entries = try await box.journal(after: cursor)
            let own = entries.filter { $0["_PID"] as? String == "\(pid)" }
            #expect(own.count >= 4, "\(entries)")
            for entry in own {
                let message = entry["MESSAGE"] as? String ?? "(not text)"
                #expect(message.hasPrefix("biometrics-vault: ") || message.hasPrefix("audit: {"), "a line that is not the service's own: \(message)")
            }
            for entry in entries {
                let priority = Int(entry["PRIORITY"] as? String ?? "") ?? 0
                #expect(priority >= 5, "priority \(priority): \(entry["MESSAGE"] as? String ?? "")")
            }
        }
    }
}
#endif
