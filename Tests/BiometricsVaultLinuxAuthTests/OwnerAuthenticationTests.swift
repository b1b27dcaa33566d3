#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Glibc
import Testing

extension LinuxAuthIntegration {
    /// PAM against the real libpam and the packaged `biometrics-vault` service (pam_unix underneath).
    @Suite struct PAMOwnerAuthenticatorTests {
        static func owner(answer: @escaping @Sendable (PAMMessage) async throws -> String?) -> PAMOwnerAuthenticator {
            PAMOwnerAuthenticator(user: Harness.testUser, conversation: answer)
        }

        @Test(.needs(Harness.pam))
        func rightPasswordAuthenticates() async throws {
            let password = try #require(Harness.testPassword)
            let prompts = LockedValue<[PAMMessage]>([])
            let owner = Self.owner { message in
                prompts.withLock { $0.append(message) }
                return message.isPrompt ? password : nil
            }
            try await owner.authenticateOwner(prompt: .default)
            let asked = prompts.withLock { $0 }
            #expect(asked.contains { $0.style == .promptEchoOff }, "pam_unix asks for the password without echo")
        }

        @Test(.needs(Harness.pam))
        func wrongPasswordIsAuthenticationFailed() async throws {
            let owner = Self.owner { $0.isPrompt ? "definitely-not-the-password" : nil }
            let error = await #expect(throws: VaultError.authenticationFailed) {
                try await owner.authenticateOwner(prompt: .default)
            }
            guard case .pam(let code, _)? = error?.underlying else {
                Issue.record("the PAM return code is kept as the cause, got \(String(describing: error?.underlying))")
                return
            }
            #expect(code != 0)
        }

        @Test(.needs(Harness.pam))
        func decliningThePromptIsUserCancel() async throws {
            let owner = Self.owner { _ in nil }
            await #expect(throws: VaultError.userCancel) { try await owner.authenticateOwner(prompt: .default) }
        }

        @Test(.needs(Harness.pam))
        func aConversationErrorIsPassedThrough() async throws {
            let owner = Self.owner { _ in throw VaultError(.interactionNotAllowed, underlying: .message("no terminal")) }
            await #expect(throws: VaultError.interactionNotAllowed) { try await owner.authenticateOwner(prompt: .default) }
        }

        @Test(.needs(Harness.pam))
        func cancellingTheTaskEndsAWaitingConversation() async throws {
            let asked = LockedValue(false)
            let owner = Self.owner { message in
                asked.withLock { $0 = true }
                try await Task.sleep(for: .seconds(600))  // a user who never types
                return nil
            }
            let task = Task { try await owner.authenticateOwner(prompt: .default) }
            while !asked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            task.cancel()
            let result = await task.result
            #expect(throws: VaultError.systemCancel) { try result.get() }
        }

        @Test func biometricPoliciesAreNotAvailable() {
            let owner = Self.owner { _ in nil }
            #expect(owner.availability(for: .biometryAny) == .unavailable(.biometryNotAvailable))
            #expect(owner.availability(for: .devicePasscode) == .available)
            #expect(owner.biometryType == .none)
        }

        @Test(.needs(Harness.pam), arguments: AuthenticatorConformance.Check.allCases)
        func conformance(check: AuthenticatorConformance.Check) async throws {
            let password = try #require(Harness.testPassword)
            let owner = Self.owner { $0.isPrompt ? password : nil }
            try await AuthenticatorConformance(authenticator: owner, policy: .devicePasscode) {}.run(check)
        }
    }
}

extension LinuxAuthIntegration {
    /// polkit against the real polkitd, with the real text agent `pkttyagent` answering in a pseudo-terminal.
    @Suite struct PolkitOwnerAuthenticatorTests {
        @Test(.needs(Harness.fingerprint))
        func probeSeesOurPolicyAndAMissingOne() {
            #expect(PolkitOwnerAuthenticator.probe() == .ready)
            #expect(PolkitOwnerAuthenticator.probe(actionID: "io.github.biometricsvault.not-installed") == .policyMissing)
            let missing = PolkitOwnerAuthenticator(actionID: "io.github.biometricsvault.not-installed")
            #expect(missing.availability(for: .devicePasscode) == .unavailable(.passcodeNotSet))
            #expect(PolkitOwnerAuthenticator().availability(for: .biometryCurrentSet) == .unavailable(.biometryNotAvailable))
        }

        @Test(.needs(Harness.fingerprint))
        func missingPolicyIsATypedError() async throws {
            let missing = PolkitOwnerAuthenticator(actionID: "io.github.biometricsvault.not-installed")
            let error = await #expect(throws: VaultError.passcodeNotSet) { try await missing.authenticateOwner(prompt: .default) }
            #expect(error?.underlying?.description.contains("setup") == true)
        }

        /// uid 0 has no known password: the test user's run answers the agent.
        @Test(.needs(Harness.fingerprint), .enabled(if: Harness.runsAsTestUser, Harness.asTestUserOnly))
        func agentAnsweringWithThePasswordAuthorizes() async throws {
            let password = try #require(Harness.testPassword)
            let agent = try await TextAgent.start(password: password)
            defer { agent.stop() }
            do {
                try await PolkitOwnerAuthenticator(timeout: .seconds(30)).authenticateOwner(prompt: .default)
            } catch {
                Issue.record("the agent printed: \(agent.output)")
                throw error
            }
            #expect(agent.output.contains("AUTHENTICATING FOR io.github.biometricsvault.authenticate-owner"))
        }

        @Test(.needs(Harness.fingerprint), .enabled(if: Harness.runsAsTestUser, Harness.asTestUserOnly))
        func noAgentIsInteractionNotAllowedWithoutHanging() async throws {
            // With a 30 s limit a hang would end as systemCancel, so the code proves polkit answered at once.
            let error = await #expect(throws: VaultError.interactionNotAllowed) {
                try await PolkitOwnerAuthenticator(timeout: .seconds(30)).authenticateOwner(prompt: .default)
            }
            #expect(error?.underlying?.description.contains("agent") == true)
        }

        @Test(.needs(Harness.fingerprint), .enabled(if: Harness.runsAsTestUser, Harness.asTestUserOnly))
        func cancellingTheTaskDismissesTheAgentsPrompt() async throws {
            let agent = try await TextAgent.start(password: nil)
            defer { agent.stop() }
            let task = Task { try await PolkitOwnerAuthenticator(timeout: .seconds(60)).authenticateOwner(prompt: .default) }
            let deadline = ContinuousClock.now + .seconds(20)
            while !agent.output.contains("Password") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(agent.output.contains("Password"))
            task.cancel()
            let result = await task.result
            #expect(throws: VaultError.systemCancel) { try result.get() }
        }

        @Test(.needs(Harness.fingerprint), .enabled(if: Harness.runsAsTestUser, Harness.asTestUserOnly))
        func fingerprintAuthenticatorClearsALockoutThroughPolkit() async throws {
            let password = try #require(Harness.testPassword)
            let directory = Harness.temporaryStateDirectory()
            let store = LockoutStore(directoryPath: directory.path, user: Harness.testUser)
            for _ in 0..<FailedAttemptCounter.limit { try store.record(.noMatch) }
            let fingerprint = FingerprintAuthenticator(owner: PolkitOwnerAuthenticator(timeout: .seconds(30)), stateDirectory: directory)
            #expect(try fingerprint.isLockedOut())
            let agent = try await TextAgent.start(password: password)
            defer { agent.stop() }
            try await fingerprint.authenticateOwner(prompt: .default)
            #expect(try !fingerprint.isLockedOut())
        }
    }
}

/// polkit's text authentication agent, `pkttyagent`, registered for this test process and running in a
/// pseudo-terminal (`script` provides it); answers the password prompt with `password` (or never).
final class TextAgent: Sendable {
    private let process: ChildProcess
    private let input: Int32
    private let collected = LockedValue("")
    private let readyFile: URL

    var output: String { collected.withLock { $0 } }

    private init(process: ChildProcess, input: Int32, readyFile: URL) {
        self.process = process
        self.input = input
        self.readyFile = readyFile
    }

    static func start(password: String?) async throws -> TextAgent {
        let readyFile = FileManager.default.temporaryDirectory.appendingPathComponent("bv-agent-\(UUID().uuidString)")
        let subject = "\(getpid()),\(PolkitAuthority.processStartTime())"
        // pkttyagent reports its registration by closing --notify-fd: route that fd into a pipe whose
        // reader writes the ready file at EOF (stdout goes to the terminal so only fd 5 holds the pipe).
        let child = try await Shell.spawn(
            "/usr/bin/script",
            [
                "-qfec",
                "{ pkttyagent --process \(subject) --notify-fd 5 5>&1 >/dev/tty & echo agent-pid $! >/dev/tty; exec >/dev/tty; wait; }"
                    + " | { cat >/dev/null; echo registered >\(readyFile.path); }",
                "/dev/null",
            ],
            environment: ["SHELL": "/bin/bash"], mergingErrors: true)
        let agent = TextAgent(process: child.process, input: child.stdin, readyFile: readyFile)
        // Answers each "Password:" prompt once. pkttyagent switches echo off with TCSAFLUSH after
        // printing the prompt, which drops input typed too early; such input is echoed, so an echoed
        // password means "typed too early": type it again (at most three times).
        let output = child.stdout
        Task {
            var answers = 0
            while let chunk = try? await Shell.readChunk(output) {
                let text = agent.collected.withLock { $0 += String(decoding: chunk, as: UTF8.self); return $0 }
                guard let password, let prompt = text.range(of: "Password:", options: .backwards) else { continue }
                let typedTooEarly = text[prompt.upperBound...].contains(password)
                guard answers == 0 || (typedTooEarly && answers < 3) else { continue }
                answers += 1
                try? await Task.sleep(for: .milliseconds(300))
                let line = Array((password + "\n").utf8)
                _ = line.withUnsafeBytes { write(agent.input, $0.baseAddress, $0.count) }
            }
            close(output)
        }
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let size = try? FileManager.default.attributesOfItem(atPath: readyFile.path)[.size] as? NSNumber,
                size.intValue > 0
            {
                return agent
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        agent.stop()
        throw VaultError(.interactionNotAllowed, underlying: .message("pkttyagent did not register: \(agent.output)"))
    }

    /// Ends pkttyagent (it outlives the terminal's hang-up) and the terminal, by their process ids;
    /// swift-subprocess reaps the terminal. Returns once the system bus no longer lists the agent's
    /// connection: polkitd forgets an agent when its connection goes, and until then sends the next
    /// request of this process to the dead agent and answers "not authorized" at once.
    func stop() {
        let text = output
        if let marker = text.range(of: "agent-pid ") {
            let digits = text[marker.upperBound...].prefix { $0.isNumber }
            if let pid = Int32(digits), pid > 1 {
                kill(pid, SIGKILL)  // it ignores SIGTERM while reading the terminal
                Self.waitUntilOffTheBus(pid)
            }
        }
        process.terminate()
        try? FileManager.default.removeItem(at: readyFile)
    }

    /// Polls `busctl list` (at most 10 s) until no connection of `pid` is on the system bus. The bus
    /// sends polkitd the connection's end before any call this process makes after that.
    private static func waitUntilOffTheBus(_ pid: Int32) {
        for _ in 0..<200 {
            let busctl = Process()
            busctl.executableURL = URL(fileURLWithPath: "/usr/bin/busctl")
            busctl.arguments = ["--system", "--no-pager", "--no-legend", "list"]
            let listing = Pipe()
            busctl.standardOutput = listing
            busctl.standardError = FileHandle.nullDevice
            guard (try? busctl.run()) != nil else { return }
            let data = listing.fileHandleForReading.readDataToEndOfFile()
            busctl.waitUntilExit()
            // NAME PID PROCESS USER ...
            let listed = String(decoding: data, as: UTF8.self).split(separator: "\n").contains {
                $0.split(separator: " ").dropFirst().first == Substring("\(pid)")
            }
            if !listed { return }
            usleep(50_000)
        }
        Issue.record("pkttyagent (pid \(pid)) was still on the system bus 10 s after SIGKILL")
    }
}
#endif
