#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// OpenSSH installed: its client tools and sshd (scripts/setup/55-openssh.sh).
let openSSHNeed = DaemonNeed(
    "OpenSSH's client and sshd", remedy: "scripts/setup/55-openssh.sh",
    problem: ["/usr/bin/ssh", "/usr/bin/ssh-add", "/usr/bin/ssh-keygen", "/usr/sbin/sshd"].first { !FileManager.default.isExecutableFile(atPath: $0) }
        .map { "\($0) is missing" })

/// The SSH agent over the vault service's keys, used by the real OpenSSH tools as the test users: keys
/// made and kept in the service, `ssh-keygen -Y sign`, `git commit -S`, `ssh` to an sshd on the
/// loopback, `ssh-add` in all its forms, and what another user and a same-user program without a finger
/// get.
extension VaultServiceCLITests {
    /// `biometrics-vault ssh-agent` of `user`, running on a socket in the user's sandbox home.
    struct RunningSSHAgent {
        let socket: String
        let process: CLIProcess
    }

    /// Its socket is in a directory of the user's in /tmp: a socket's path holds 107 bytes at most.
    func startSSHAgent(as user: String, _ options: [String] = []) async throws -> RunningSSHAgent {
        let directory = "/tmp/bv-ssh-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, directory])
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["700", directory])
        let socket = directory + "/agent.sock"
        let line = command(["ssh-agent", "--socket", socket] + options, as: user)
        let process = try await sandbox.start(executable: URL(fileURLWithPath: "/usr/sbin/runuser"), Array(line.dropFirst()))
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(for: .milliseconds(25)) }
        if !FileManager.default.fileExists(atPath: socket) {
            process.process.terminate()
            Issue.record("the agent did not listen: \(try await process.result().stderr)")
        }
        return RunningSSHAgent(socket: socket, process: process)
    }

    func stop(_ agent: RunningSSHAgent) async throws {
        agent.process.process.terminate()
        try await agent.process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: (agent.socket as NSString).deletingLastPathComponent)
    }

    /// An OpenSSH tool (or git) run as `user` with `SSH_AUTH_SOCK` at `agent`.
    func withAgent(_ tool: String, _ arguments: [String], as user: String, agent: String, stdin: String? = nil) async throws -> CLIResult {
        try await run(["SSH_AUTH_SOCK=\(agent)", tool] + arguments, as: user, stdin: stdin, executable: "/usr/bin/env")
    }

    /// Starts such a tool, answers the check it causes with `finger`, and returns what it printed.
    func withAgent(_ tool: String, _ arguments: [String], as user: String, agent: String, finger: String) async throws -> CLIResult {
        let line = command(["SSH_AUTH_SOCK=\(agent)", tool] + arguments, as: user, executable: "/usr/bin/env")
        let process = try await sandbox.start(executable: URL(fileURLWithPath: "/usr/sbin/runuser"), Array(line.dropFirst()))
        try await reader.waitForFingerNeeded()
        try await reader.scan(finger)
        return try await process.result()
    }

    /// A file of `user` in its sandbox home with `text`.
    func userFile(_ name: String, _ text: String, of user: String) async throws -> String {
        let path = sandbox.root.appendingPathComponent("home-\(user)/\(name)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, path])
        return path
    }

    /// `ssh-keygen -Y verify` of `signature` over `message` by the key `publicKey` (an authorized_keys line).
    func sshsigVerifies(_ signature: String, of message: String, by publicKey: String, namespace: String = "git") async throws -> Bool {
        let directory = sandbox.root.appendingPathComponent("verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let signers = directory.appendingPathComponent("allowed_signers")
        try "signer \(publicKey)\n".write(to: signers, atomically: true, encoding: .utf8)
        let sig = directory.appendingPathComponent("message.sig")
        try signature.write(to: sig, atomically: true, encoding: .utf8)
        let verified = try await sandbox.run(
            executable: URL(fileURLWithPath: "/usr/bin/ssh-keygen"),
            ["-Y", "verify", "-f", signers.path, "-I", "signer", "-n", namespace, "-s", sig.path], stdin: message)
        return verified.status == 0 && verified.stdout.contains("Good")
    }

    /// The service's audit of `user`, as JSON lines' `result`s of `event`.
    func auditResults(_ event: String, as user: String) async throws -> [String] {
        let audit = try await run(["audit", "--json"], as: user)
        let entries = (try? JSONSerialization.jsonObject(with: Data(audit.stdout.utf8))) as? [[String: Any]] ?? []
        return entries.filter { $0["event"] as? String == event }.compactMap { $0["result"] as? String }
    }

    func deleteSSHKeys(of users: [String]) async {
        for user in users {
            let listed = (try? await run(["ssh-key", "list", "--json"], as: user))?.stdout ?? ""
            let keys = (try? JSONSerialization.jsonObject(with: Data(listed.utf8))) as? [[String: Any]] ?? []
            for name in keys.compactMap({ $0["name"] as? String }) { _ = try? await run(["ssh-key", "delete", name], as: user) }
        }
    }

    @Test(.needs(CLINeeds.testUser, openSSHNeed))
    func sshKeysLiveInTheServiceAndOnlyTheirPublicHalfLeavesIt() async throws {
        try await prepareHomes()
        try await withCleanup { () async throws -> Void in
            for (name, type, expected) in [("k-ed", "ed25519", "ssh-ed25519"), ("k-ec", "ecdsa", "ecdsa-sha2-nistp256"),
                                           ("k-ec384", "ecdsa-p384", "ecdsa-sha2-nistp384"), ("k-rsa", "rsa", "ssh-rsa")] {
                let made = try await run(["ssh-key", "generate", name, "--type", type, "--policy", "none"], as: user)
                #expect(made.status == 0 && made.stdout.hasPrefix(expected + " ") && made.stdout.contains(" \(name)"), "\(made.stdout)\(made.stderr)")
                let shown = try await run(["ssh-key", "public", name], as: user)
                #expect(shown.stdout == made.stdout, "\(shown.stdout)")
                // ssh-keygen reads the line and prints the fingerprint `ssh-key list` shows.
                let file = try await userFile("\(name).pub", made.stdout, of: user)
                let fingerprint = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-l", "-f", file])
                let sha = fingerprint.stdout.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
                #expect(fingerprint.status == 0 && sha.hasPrefix("SHA256:"), "\(fingerprint.stdout)\(fingerprint.stderr)")
                #expect(try await run(["ssh-key", "list"], as: user).stdout.contains("\(name)  \(expected)  \(sha)  none"))
            }
            let again = try await run(["ssh-key", "generate", "k-ed"], as: user)
            #expect(again.status != 0 && again.stderr.contains("an SSH key is named k-ed"), "a second key took the name of the first: \(again.stdout)\(again.stderr)")
            let badType = try await run(["ssh-key", "generate", "k-dsa", "--type", "dsa"], as: user)
            #expect(badType.status == 64 && badType.stderr.contains("--type"), "\(badType.stderr)")
            // No method hands the key out: the items' methods refuse the service that holds the keys.
            for (method, arguments) in [("Read", ["biometrics-vault.ssh-key", "k-ed", "[]"]), ("List", ["biometrics-vault.ssh-key"])] {
                let refused = try await gdbus(method, arguments, as: user)
                #expect(refused.status != 0 && refused.stderr.contains("Error.invalidKey"), "\(method): \(refused.stdout)\(refused.stderr)")
            }
            #expect(try await run(["ssh-key", "list"], as: other).stdout.isEmpty, "another user sees this user's keys")
            #expect(try await run(["ssh-key", "delete", "k-ed"], as: other).status != 0)
            #expect(try await run(["ssh-key", "delete", "k-ed"], as: user).status == 0)
            #expect(try await !run(["ssh-key", "list"], as: user).stdout.contains("k-ed "))
            let gone = try await run(["ssh-key", "delete", "k-ed"], as: user)
            #expect(gone.status == 2 && gone.stderr.contains("no SSH key is named k-ed"), "\(gone.stderr)")
        } cleanup: {
            await deleteSSHKeys(of: [user, other])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser, openSSHNeed))
    func aGitSignatureThroughTheAgentNeedsAMatchingFinger() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let agent = try await startSSHAgent(as: user)
        try await withCleanup { () async throws -> Void in
            let refusedBefore = try await auditResults("sshSign", as: user).filter { $0.hasPrefix("refused") }.count
            let made = try await run(["ssh-key", "generate", "signer"], as: user)
            #expect(made.status == 0, "\(made.stderr)")
            let publicKey = try await userFile("signer.pub", made.stdout, of: user)
            let listed = try await withAgent("/usr/bin/ssh-add", ["-L"], as: user, agent: agent.socket)
            #expect(listed.stdout == made.stdout, "ssh-add -L: \(listed.stdout)\(listed.stderr)")
            let signed = try await withAgent(
                "/usr/bin/ssh-keygen", ["-Y", "sign", "-n", "git", "-f", publicKey], as: user, agent: agent.socket, finger: Self.finger)
            #expect(signed.status == 0 && signed.stdout.contains("BEGIN SSH SIGNATURE"), "\(signed.stdout)\(signed.stderr)")
            #expect(try await sshsigVerifies(signed.stdout, of: "", by: made.stdout))
            let refused = try await withAgent(
                "/usr/bin/ssh-keygen", ["-Y", "sign", "-n", "git", "-f", publicKey], as: user, agent: agent.socket, finger: Self.otherFinger)
            #expect(refused.status != 0 && !refused.stdout.contains("BEGIN SSH SIGNATURE"), "a wrong finger signed: \(refused.stdout)")
            let results = try await auditResults("sshSign", as: user)
            #expect(results.contains { $0.hasPrefix("sign a git commit or tag: finger") }, "\(results)")
            let refusals = try await auditResults("sshSign", as: user).filter { $0.hasPrefix("refused") }
            #expect(refusals.count == refusedBefore + 1, "\(refusals)")
        } cleanup: {
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }

    /// sshd on the loopback as root, with a host key and an authorized_keys file of its own, and
    /// `authorized` as the user's only key; its port and host key's fingerprint.
    func startSSHD(authorizing authorized: String, for user: String) async throws -> (port: Int, hostFingerprint: String, process: CLIProcess) {
        let directory = sandbox.root.appendingPathComponent("sshd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("authorized"), withIntermediateDirectories: true)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["-R", "755", directory.path])
        try authorized.write(to: directory.appendingPathComponent("authorized/\(user)"), atomically: true, encoding: .utf8)
        let hostKey = directory.appendingPathComponent("host_ed25519").path
        let made = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-q", "-t", "ed25519", "-N", "", "-f", hostKey])
        try #require(made.status == 0, "\(made.stderr)")
        let fingerprint = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-l", "-f", hostKey + ".pub"])
        let port = try freeLoopbackPort()
        let config = directory.appendingPathComponent("sshd_config")
        try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile \(directory.path)/sshd.pid
            AuthorizedKeysFile \(directory.path)/authorized/%u
            StrictModes no
            UsePAM no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PubkeyAuthentication yes
            AllowAgentForwarding yes
            AcceptEnv none
            """.write(to: config, atomically: true, encoding: .utf8)
        let sshd = try await sandbox.start(executable: URL(fileURLWithPath: "/usr/sbin/sshd"), ["-D", "-e", "-f", config.path])
        for _ in 0..<200 {
            if connectsToLoopback(port) { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        if !connectsToLoopback(port) {
            sshd.process.terminate()
            Issue.record("sshd did not listen: \(try await sshd.result().stderr)")
        }
        return (port, fingerprint.stdout.split(separator: " ").dropFirst().first.map(String.init) ?? "?", sshd)
    }

    func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func connectsToLoopback(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    func sshOptions(port: Int) -> [String] {
        ["-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "PreferredAuthentications=publickey", "-o", "LogLevel=ERROR", "-p", String(port)]
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser, openSSHNeed))
    func sshLogsInToALoopbackServerOnlyAfterAMatchingFinger() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let agent = try await startSSHAgent(as: user)
        let made = try await run(["ssh-key", "generate", "login", "--type", "ecdsa"], as: user)
        let sshd = try await startSSHD(authorizing: made.stdout, for: user)
        try await withCleanup { () async throws -> Void in
            let login = try await withAgent(
                "/usr/bin/ssh", sshOptions(port: sshd.port) + ["\(user)@127.0.0.1", "echo logged-in-as-$(id -un)"], as: user,
                agent: agent.socket, finger: Self.finger)
            #expect(login.status == 0 && login.stdout.contains("logged-in-as-\(user)"), "\(login.stdout)\(login.stderr)")
            let denied = try await withAgent(
                "/usr/bin/ssh", sshOptions(port: sshd.port) + ["\(user)@127.0.0.1", "echo logged-in"], as: user, agent: agent.socket,
                finger: Self.otherFinger)
            #expect(denied.status == 255 && denied.stderr.contains("Permission denied (publickey)"), "\(denied.stdout)\(denied.stderr)")
            // The prompt named the login and the host by the key its session binding proved.
            let results = try await auditResults("sshSign", as: user)
            #expect(results.contains { $0.hasPrefix("log in to the host \(sshd.hostFingerprint) as \(user): finger") }, "\(results)")
        } cleanup: {
            sshd.process.process.terminate()
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser, openSSHNeed))
    func aSignatureAskedFromTheFarSideOfSSHDashAIsNamedForwarded() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let agent = try await startSSHAgent(as: user, ["--policy", "biometryAny", "--window", "60"])
        let made = try await run(["ssh-key", "generate", "forwarded"], as: user)
        let publicKey = try await userFile("forwarded.pub", made.stdout, of: user)
        let sshd = try await startSSHD(authorizing: made.stdout, for: user)
        try await withCleanup { () async throws -> Void in
            // One finger for the login opens the key's window for this agent; the signature asked from
            // the far side then needs none, and is still named as forwarded.
            let remote = try await withAgent(
                "/usr/bin/ssh", sshOptions(port: sshd.port) + ["-A", "\(user)@127.0.0.1", "echo | ssh-keygen -Y sign -n git -f \(publicKey)"],
                as: user, agent: agent.socket, finger: Self.finger)
            #expect(remote.status == 0 && remote.stdout.contains("BEGIN SSH SIGNATURE"), "\(remote.stdout)\(remote.stderr)")
            let results = try await auditResults("sshSign", as: user)
            #expect(results.contains { $0.hasPrefix("log in to the host \(sshd.hostFingerprint) as \(user): finger") }, "\(results)")
            #expect(results.contains { $0.hasPrefix("sign a git commit or tag (a request forwarded from the host \(sshd.hostFingerprint)): inside a window") }, "\(results)")
        } cleanup: {
            sshd.process.process.terminate()
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser, openSSHNeed))
    func aWindowServesSeveralLoginsButAKeyToConfirmAsksEachTime() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let agent = try await startSSHAgent(as: user, ["--window", "60"])
        let made = try await run(["ssh-key", "generate", "windowed"], as: user)
        let confirmed = sandbox.root.appendingPathComponent("home-\(user)/id_confirm").path
        _ = try await run(["-q", "-t", "ed25519", "-N", "", "-C", "confirm-each", "-f", confirmed], as: user, executable: "/usr/bin/ssh-keygen")
        let sshd = try await startSSHD(authorizing: made.stdout, for: user)
        try await withCleanup { () async throws -> Void in
            let login = sshOptions(port: sshd.port) + ["\(user)@127.0.0.1", "echo logged-in"]
            let first = try await withAgent("/usr/bin/ssh", login, as: user, agent: agent.socket, finger: Self.finger)
            #expect(first.stdout == "logged-in\n", "\(first.stdout)\(first.stderr)")
            for _ in 0..<2 {
                let again = try await withAgent("/usr/bin/ssh", login, as: user, agent: agent.socket)
                #expect(again.stdout == "logged-in\n", "a login inside the window: \(again.stdout)\(again.stderr)")
            }
            let windowed = try await auditResults("sshSign", as: user).filter { $0.contains(sshd.hostFingerprint) && $0.hasSuffix("inside a window") }
            #expect(windowed.count == 2, "\(windowed)")
            // ssh-add -c: the agent's window serves this key never; each signature asks.
            let add = try await withAgent("/usr/bin/ssh-add", ["-c", confirmed], as: user, agent: agent.socket)
            #expect(add.status == 0, "\(add.stderr)")
            let publicKey = confirmed + ".pub"
            for _ in 0..<2 {
                let signed = try await withAgent(
                    "/usr/bin/ssh-keygen", ["-Y", "sign", "-n", "git", "-f", publicKey], as: user, agent: agent.socket, finger: Self.finger)
                #expect(signed.stdout.contains("BEGIN SSH SIGNATURE"), "\(signed.stderr)")
            }
            let listed = try await run(["ssh-key", "list"], as: user)
            #expect(listed.stdout.contains("biometryAny  confirm  (added by ssh-add)"), "\(listed.stdout)")
        } cleanup: {
            sshd.process.process.terminate()
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }

    @Test(.needs(CLINeeds.testUser, openSSHNeed))
    func printEnvStartsOneAgentForAShell() async throws {
        try await prepareHomes()
        let directory = "/tmp/bv-ssh-env-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, directory])
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["700", directory])
        let socket = directory + "/agent.sock"
        try await withCleanup { () async throws -> Void in
            let made = try await run(["ssh-key", "generate", "from-env", "--policy", "none"], as: user)
            let first = try await run(["ssh-agent", "--print-env", "--socket", socket], as: user)
            #expect(first.status == 0 && first.stdout == "SSH_AUTH_SOCK='\(socket)'; export SSH_AUTH_SOCK;\n", "\(first.stdout)\(first.stderr)")
            let second = try await run(["ssh-agent", "--print-env", "--socket", socket], as: user)
            #expect(second.stdout == first.stdout)
            let agents = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pgrep"), ["-u", user, "-f", "ssh-agent --socket \(socket)"])
            #expect(agents.stdout.split(separator: "\n").count == 1, "agents: \(agents.stdout)")
            let shell = try await run(["-c", "eval \"$1\"; ssh-add -L", "sh", first.stdout], as: user, executable: "/bin/sh")
            #expect(shell.stdout == made.stdout, "\(shell.stdout)\(shell.stderr)")
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pkill"), ["-u", user, "-f", "ssh-agent --socket \(socket)"])
            try? FileManager.default.removeItem(atPath: directory)
            await deleteSSHKeys(of: [user])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser, openSSHNeed))
    func gitSignsACommitThroughTheAgentAndVerifiesIt() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let agent = try await startSSHAgent(as: user)
        let made = try await run(["ssh-key", "generate", "commits"], as: user)
        let signers = try await userFile("allowed_signers", "t@example.org \(made.stdout)", of: user)
        let repository = sandbox.root.appendingPathComponent("home-\(user)/repository").path
        let git = ["-C", repository, "-c", "user.name=T", "-c", "user.email=t@example.org", "-c", "gpg.format=ssh",
                   "-c", "user.signingkey=key::\(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))",
                   "-c", "gpg.ssh.allowedSignersFile=\(signers)"]
        try await withCleanup { () async throws -> Void in
            #expect(try await run(["init", "-q", repository], as: user, executable: "/usr/bin/git").status == 0)
            let commit = try await withAgent(
                "/usr/bin/git", git + ["commit", "-q", "--allow-empty", "-S", "-m", "signed"], as: user, agent: agent.socket, finger: Self.finger)
            #expect(commit.status == 0, "\(commit.stdout)\(commit.stderr)")
            let verified = try await withAgent("/usr/bin/git", git + ["verify-commit", "HEAD"], as: user, agent: agent.socket)
            #expect(verified.status == 0 && verified.stderr.contains("Good \"git\" signature for t@example.org"), "\(verified.stdout)\(verified.stderr)")
        } cleanup: {
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }

    @Test(.needs(CLINeeds.testUser, openSSHNeed))
    func sshAddGivesKeysToTheServiceWhichKeepsThemAcrossRestarts() async throws {
        try await prepareHomes()
        var agent = try await startSSHAgent(as: user, ["--policy", "none"])
        try await withCleanup { () async throws -> Void in
            let generated = try await run(["ssh-key", "generate", "made-here", "--policy", "none"], as: user)
            var added: [String: String] = [:]
            for (type, bits) in [("ed25519", ""), ("ecdsa", "384"), ("rsa", "3072")] {
                let file = sandbox.root.appendingPathComponent("home-\(user)/id_\(type)").path
                let made = try await run(
                    ["-q", "-t", type] + (bits.isEmpty ? [] : ["-b", bits]) + ["-N", "", "-C", "file-\(type)", "-f", file], as: user,
                    executable: "/usr/bin/ssh-keygen")
                #expect(made.status == 0, "\(made.stderr)")
                let add = try await withAgent("/usr/bin/ssh-add", [file], as: user, agent: agent.socket)
                #expect(add.status == 0 && add.stderr.contains("Identity added"), "\(add.stdout)\(add.stderr)")
                added[type] = try String(contentsOfFile: file + ".pub", encoding: .utf8)
                // The private key now lives in the service only: the file goes, the key still signs.
                try FileManager.default.removeItem(atPath: file)
                let publicKey = try await userFile("id_\(type)-copy.pub", added[type] ?? "", of: user)
                let signed = try await withAgent("/usr/bin/ssh-keygen", ["-Y", "sign", "-n", "file", "-f", publicKey], as: user, agent: agent.socket, stdin: "data")
                #expect(try await sshsigVerifies(signed.stdout, of: "data", by: added[type] ?? "", namespace: "file"), "\(type): \(signed.stderr)")
            }
            func listed() async throws -> String { try await withAgent("/usr/bin/ssh-add", ["-L"], as: user, agent: agent.socket).stdout }
            for line in added.values { #expect(try await listed().contains(line.split(separator: " ").prefix(2).joined(separator: " "))) }
            #expect(try await withAgent("/usr/bin/ssh-add", ["-l"], as: user, agent: agent.socket).stdout.contains("file-ed25519 (ED25519)"))
            // A new agent, and a new service, list the same keys.
            try await stop(agent)
            try await killService()
            agent = try await startSSHAgent(as: user, ["--policy", "none"])
            let afterRestart = try await listed()
            #expect(afterRestart.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 4, "\(afterRestart)")
            // -x / -X: locked, the agent lists nothing and signs nothing until the same passphrase unlocks it.
            #expect(try await withAgent("/usr/bin/ssh-add", ["-x"], as: user, agent: agent.socket, stdin: "pass\npass\n").status == 0)
            #expect(try await !listed().contains("ssh-"), "a locked agent listed keys")
            #expect(try await withAgent("/usr/bin/ssh-add", ["-X"], as: user, agent: agent.socket, stdin: "wrong\n").status != 0)
            #expect(try await withAgent("/usr/bin/ssh-add", ["-X"], as: user, agent: agent.socket, stdin: "pass\n").status == 0)
            #expect(try await listed().contains("ssh-"), "an unlocked agent listed no key")
            // -d removes an added key from the service; -D every added key, never the one made there.
            let ed = try await userFile("ed.pub", added["ed25519"] ?? "", of: user)
            #expect(try await withAgent("/usr/bin/ssh-add", ["-d", ed], as: user, agent: agent.socket).status == 0)
            #expect(try await !listed().contains("file-ed25519"))
            #expect(try await withAgent("/usr/bin/ssh-add", ["-D"], as: user, agent: agent.socket).status == 0)
            let kept = try await listed()
            #expect(kept == generated.stdout, "\(kept)")
            let made = try await userFile("made.pub", generated.stdout, of: user)
            #expect(try await withAgent("/usr/bin/ssh-add", ["-d", made], as: user, agent: agent.socket).status != 0, "ssh-add -d deleted a generated key")
            // -t: the key goes when its lifetime passes.
            let brief = sandbox.root.appendingPathComponent("home-\(user)/id_brief").path
            _ = try await run(["-q", "-t", "ed25519", "-N", "", "-C", "brief", "-f", brief], as: user, executable: "/usr/bin/ssh-keygen")
            #expect(try await withAgent("/usr/bin/ssh-add", ["-t", "1", brief], as: user, agent: agent.socket).status == 0)
            #expect(try await listed().contains("brief"))
            var outlived = true
            for _ in 0..<50 where outlived {
                try await Task.sleep(for: .milliseconds(100))
                outlived = try await listed().contains("brief")
            }
            #expect(!outlived, "a key outlived its lifetime by seconds")
            // A constraint the agent would not enforce is refused, and nothing is added.
            let restricted = try await withAgent("/usr/bin/ssh-add", ["-h", "127.0.0.1", brief], as: user, agent: agent.socket)
            #expect(restricted.status != 0, "restrict-destination was accepted: \(restricted.stderr)")
            #expect(try await !listed().contains("brief"))
        } cleanup: {
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser, openSSHNeed))
    func anotherUserAndAProgramWithoutAFingerGetNoSignature() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let agent = try await startSSHAgent(as: user)
        try await withCleanup { () async throws -> Void in
            let made = try await run(["ssh-key", "generate", "guarded"], as: user)
            // Another user reaches neither the socket nor, through its own agent, this user's key.
            let other = try await withAgent("/usr/bin/ssh-add", ["-L"], as: self.other, agent: agent.socket)
            #expect(other.status == 2 && !other.stdout.contains("ecdsa") && !other.stdout.contains("ssh-"), "\(other.stdout)\(other.stderr)")
            // A same-user program asks the service itself: a wrong finger ends it, and nothing is signed.
            let blob = try #require(made.stdout.split(separator: " ").dropFirst().first.flatMap { Data(base64Encoded: String($0)) })
            let bytes = "[" + blob.map { "0x" + String($0, radix: 16) }.joined(separator: ", ") + "]"
            let line = command(
                ["call", "--system", "--dest", Self.busName, "--object-path", Self.objectPath, "--method",
                 "io.github.biometricsvault.Vault1.SSHSign", bytes, "[0x01]", "0", "[]", "mine", "0"], as: user, executable: "/usr/bin/gdbus")
            let direct = try await sandbox.start(executable: URL(fileURLWithPath: "/usr/sbin/runuser"), Array(line.dropFirst()))
            try await reader.waitForFingerNeeded()
            try await reader.scan(Self.otherFinger)
            let refused = try await direct.result()
            #expect(refused.status != 0 && refused.stderr.contains("Error.authenticationFailed"), "\(refused.stdout)\(refused.stderr)")
            // Malformed frames get a failure or a closed connection, and the agent goes on serving.
            let program = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                s.sendall(bytes([0, 0, 0, 2, 0xff, 0]))
                print(s.recv(64).hex())
                s.sendall(bytes([0xff, 0xff, 0xff, 0xff]))
                print("closed" if s.recv(64) == b"" else "answered")
                """
            let garbage = try await run(["-c", program, agent.socket], as: user, executable: "/usr/bin/python3")
            #expect(garbage.stdout == "0000000105\nclosed\n", "\(garbage.stdout)\(garbage.stderr)")
            #expect(try await withAgent("/usr/bin/ssh-add", ["-L"], as: user, agent: agent.socket).stdout == made.stdout)
        } cleanup: {
            try? await stop(agent)
            await deleteSSHKeys(of: [user])
        }
    }
}
#endif
