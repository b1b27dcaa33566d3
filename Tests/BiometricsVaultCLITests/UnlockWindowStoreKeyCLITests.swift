#if os(Linux)
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultFileStore
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The file store's key kept by the unlock-window agent: a TPM-PIN store (real swtpm, run as the test
/// user) and a passphrase store ask their secret once per window, on real ptys as the test user.
extension UnlockWindowCLITests {
    static let softwareTPM = DaemonNeed(
        "swtpm", remedy: "scripts/setup/40-swtpm.sh", problem: UserSoftwareTPM.binary == nil ? "not installed" : nil)

    static let pinPrompt = "TPM PIN for the file store: "
    static let passphrasePrompt = "Passphrase for the file store: "

    /// Runs the CLI (`--store file --authenticator pam`, `--unlock-window WINDOW` unless `window` is nil) on
    /// `terminal` after `prefix`, answering each `prompt` with `secret`; how many times it asked, the
    /// exit status and what the terminal showed.
    func runAnswering(
        _ terminal: UserTerminal, _ words: [String], prompt: String, secret: String, prefix: [String], window: String? = "60"
    ) async -> (prompts: Int, status: Int32?, text: String) {
        let session = terminal.session
        let start = session.text.count
        let id = UUID().uuidString.prefix(8)
        let line = shellQuoted(
            prefix + [CLISandbox.binary.path] + words + ["--store", "file", "--authenticator", "pam"] + (window.map { ["--unlock-window", $0] } ?? []))
        session.type("\(line); printf 'BV%s-\(id)-%d\\n' KEY $?\n")
        var answered = 0
        for _ in 0..<600 {
            let text = String(session.text.dropFirst(start))
            if let range = text.range(of: "BVKEY-\(id)-") {
                return (answered, Int32(text[range.upperBound...].prefix { $0.isNumber }), text)
            }
            let asked = text.components(separatedBy: prompt).count - 1
            if asked > answered {
                answered = asked
                session.type(secret + "\n")
            }
            try? await Task.sleep(for: .microseconds(50_000))
        }
        return (answered, nil, String(session.text.dropFirst(start)))
    }

    /// A field of `/proc/PID/status` (`VmLck`, `Uid`), the text after its colon.
    func procStatus(_ pid: Int32, _ field: String) -> String? {
        CLISandbox.text(of: URL(fileURLWithPath: "/proc/\(pid)/status")).split(separator: "\n")
            .first { $0.hasPrefix(field + ":") }
            .map { $0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    /// Kilobytes of locked memory of `pid` (`VmLck`).
    func lockedKilobytes(_ pid: Int32) -> Int? {
        procStatus(pid, "VmLck").flatMap { Int($0.split(separator: " ").first ?? "") }
    }

    /// Every file of the store and its bytes.
    func storeSnapshot() -> [String: Data] {
        var files: [String: Data] = [:]
        let root = sandbox.storeDirectory
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator() {
            if let data = try? Data(contentsOf: url) { files[url.path] = data }
        }
        return files
    }

    /// The agent holds the key as promised: in a process that is not dumpable (the kernel then makes
    /// the files in its /proc directory root's, while the agent runs as the test user), in locked memory (`VmLck`) that a
    /// mapping both locked and left out of core dumps (`lo` and `dd` in smaps' VmFlags) holds.
    func expectKeyHeldSafely(agent pid: Int32) {
        let uid = procStatus(pid, "Uid")?.split(separator: "\t").first.map(String.init)
        #expect(uid != nil && uid != "0", "the agent runs as the test user: \(uid ?? "?")")
        var info = stat()
        #expect(stat("/proc/\(pid)/status", &info) == 0 && info.st_uid == 0, "the agent is dumpable: its /proc files belong to uid \(info.st_uid)")
        // AddressSanitizer's runtime replaces `mlock` with a no-op that succeeds: in CI's ASan run (the
        // agent is the CLI of the same build as this test) only the dump exclusion can be seen.
        let locks = !Self.builtWithAddressSanitizer
        if locks {
            #expect((lockedKilobytes(pid) ?? 0) > 0, "no locked memory: \(procStatus(pid, "VmLck") ?? "?")")
        }
        // Read to the end: /proc files have no size, and smaps is longer than one read.
        let smaps = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/smaps")).readToEnd()) ?? nil
        let flags = String(decoding: smaps ?? Data(), as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("VmFlags:") }
        #expect(
            flags.contains { (!locks || $0.split(separator: " ").contains("lo")) && $0.split(separator: " ").contains("dd") },
            "no \(locks ? "locked, " : "")undumpable mapping among \(flags.count)")
    }

    /// Whether this build carries AddressSanitizer (its runtime is linked into every binary of the build).
    static var builtWithAddressSanitizer: Bool {
        dlsym(nil, "__asan_init") != nil
    }

    /// A TPM-PIN store of the test user, sealed with PIN 2468, holding `item`; `body` runs with its first
    /// terminal, the user, and the environment that names the user's software TPM.
    func withTPMPINStore(_ body: (_ first: UserTerminal, _ user: String, _ env: [String]) async throws -> Void) async throws {
        let (user, password) = try await testUser()
        let tpm = try await UserSoftwareTPM(user: user, directory: runtime.appendingPathComponent("tpm"))
        defer { tpm.stop() }
        let env = ["env", "BIOMETRICS_VAULT_TPM_TCTI=\(tpm.tcti)"]
        let first = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            let sealed = try await first.run(["key", "seal", "--tpm", "--pin-stdin"], prefix: env, storeOptions: false, input: "2468\n")
            #expect(sealed.status == 0, "\(sealed.text)")
            let credentials = try sandbox.file("creds.json", #"{"token":"sealed-by-the-tpm"}"#)
            _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, credentials])
            let stored = try await first.run(["store", "item", "--from-file", credentials, "--pin-stdin"], prefix: env, input: "2468\n")
            #expect(stored.status == 0, "\(stored.text)")
            try await body(first, user, env)
        } cleanup: {
            await first.close()
        }
    }

    /// A TPM-PIN store: the PIN once for three `show`s on one terminal; another terminal is asked; `lock`
    /// drops the key (asked again); `kill -9` of the agent: asked again, nothing stored changed; a short
    /// window keeps the key for its length only.
    @Test(.needs(UnlockWindowCLITests.terminalUser, UnlockWindowCLITests.softwareTPM)) func aTPMPINIsAskedOncePerWindow() async throws {
        try await withTPMPINStore { first, user, env in
            let reads = await (0..<3).asyncMap { _ in await runAnswering(first, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env) }
            for read in reads { #expect(read.status == 0 && read.text.contains("sealed-by-the-tpm"), "\(read.text)") }
            #expect(reads.map(\.prompts) == [1, 0, 0], "\(reads.map(\.text))")
            let agent = try agentPID()
            expectKeyHeldSafely(agent: agent)

            let second = try await UserTerminal(user: user, password: first.password, sandbox: sandbox, runtime: runtime)
            try await withCleanup { () async throws -> Void in
                let elsewhere = await runAnswering(second, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env)
                #expect(elsewhere.prompts == 1 && elsewhere.status == 0, "\(elsewhere.text)")

                let locked = try await first.run(["lock"], storeOptions: false)
                #expect(locked.status == 0 && locked.text.contains("closed 2 unlock window(s)"), "\(locked.text)")
                #expect(lockedKilobytes(agent) == 0, "the keys' locked pages were not released: \(procStatus(agent, "VmLck") ?? "?")")
                let afterLock = await runAnswering(first, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env)
                #expect(afterLock.prompts == 1 && afterLock.status == 0, "\(afterLock.text)")

                let before = storeSnapshot()
                try #require(kill(agent, SIGKILL) == 0)
                for _ in 0..<100 where kill(agent, 0) == 0 { try await Task.sleep(for: .microseconds(20_000)) }
                let afterKill = await runAnswering(first, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env)
                #expect(afterKill.prompts == 1 && afterKill.status == 0 && afterKill.text.contains("sealed-by-the-tpm"), "\(afterKill.text)")
                #expect(storeSnapshot() == before, "the store changed")

                // A short window: the key is kept for its length only. (6 s: on a loaded machine two commands
                // can be more than 2 s apart.)
                let short = await (0..<2).asyncMap { _ in
                    await runAnswering(second, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env, window: "6s")
                }
                #expect(short.map(\.prompts) == [1, 0], "\(short.map(\.text))")
                try await Task.sleep(for: .seconds(7))
                let expired = await runAnswering(second, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env, window: "6s")
                #expect(expired.prompts == 1 && expired.status == 0, "\(expired.text)")
                #expect(!agentLog.contains("2468"))
            } cleanup: {
                await second.close()
            }
        }
    }

    /// A new PIN set where the agent cannot be told (no runtime directory) rewrites the key file: the
    /// kept key no longer matches it, is dropped, and the new PIN is asked. A `key` verb that reaches the
    /// agent has it drop the store's keys at once.
    @Test(.needs(UnlockWindowCLITests.terminalUser, UnlockWindowCLITests.softwareTPM)) func aChangedTPMPINDropsTheKeptKey() async throws {
        try await withTPMPINStore { first, _, env in
            let kept = await runAnswering(first, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env)
            #expect(kept.prompts == 1 && kept.status == 0, "\(kept.text)")
            let unseen = try await first.run(
                ["key", "seal", "--tpm", "--pin-stdin"], prefix: env + ["XDG_RUNTIME_DIR=\(runtime.path)/elsewhere"], storeOptions: false,
                input: "2468\n1357\n")
            #expect(unseen.status == 0, "\(unseen.text)")
            let afterChange = await runAnswering(first, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "1357", prefix: env)
            #expect(afterChange.prompts == 1 && afterChange.status == 0 && afterChange.text.contains("sealed-by-the-tpm"), "\(afterChange.text)")
            #expect(agentLog.contains("its key file changed"), "\(agentLog)")
            let told = try await first.run(["key", "seal", "--tpm", "--pin-stdin"], prefix: env, storeOptions: false, input: "1357\n2468\n")
            #expect(told.status == 0, "\(told.text)")
            #expect(agentLog.contains("dropped 1 key(s) of the store"), "\(agentLog)")
            let afterTold = await runAnswering(first, ["show", "item", "--field", "token"], prompt: Self.pinPrompt, secret: "2468", prefix: env)
            #expect(afterTold.prompts == 1 && afterTold.status == 0, "\(afterTold.text)")
            #expect(!agentLog.contains("2468") && !agentLog.contains("1357"))
        }
    }

    /// A passphrase store: asked once for three `show`s; another terminal is asked; `lock` drops the key.
    /// (Each passphrase costs a scrypt, slow in a debug build: the key-file change is tested with the TPM.)
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func aPassphraseIsAskedOncePerWindow() async throws {
        let (user, password) = try await testUser()
        let first = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            let wrapped = try await first.run(["key", "passphrase", "--passphrase-stdin"], storeOptions: false, input: "correct horse\n")
            #expect(wrapped.status == 0, "\(wrapped.text)")
            let credentials = try sandbox.file("creds.json", #"{"token":"behind-a-passphrase"}"#)
            _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, credentials])
            let stored = try await first.run(["store", "item", "--from-file", credentials, "--passphrase-stdin"], input: "correct horse\n")
            #expect(stored.status == 0, "\(stored.text)")

            let show = ["show", "item", "--field", "token"]
            let reads = await (0..<3).asyncMap { _ in await runAnswering(first, show, prompt: Self.passphrasePrompt, secret: "correct horse", prefix: []) }
            for read in reads { #expect(read.status == 0 && read.text.contains("behind-a-passphrase"), "\(read.text)") }
            #expect(reads.map(\.prompts) == [1, 0, 0], "\(reads.map(\.text))")
            expectKeyHeldSafely(agent: try agentPID())
            // Without a window length the key is not used: asked.
            let off = await runAnswering(first, show, prompt: Self.passphrasePrompt, secret: "correct horse", prefix: [], window: nil)
            #expect(off.prompts == 1 && off.status == 0, "\(off.text)")

            let second = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
            try await withCleanup { () async throws -> Void in
                let elsewhere = await runAnswering(second, show, prompt: Self.passphrasePrompt, secret: "correct horse", prefix: [])
                #expect(elsewhere.prompts == 1 && elsewhere.status == 0, "\(elsewhere.text)")

                let locked = try await first.run(["lock"], storeOptions: false)
                #expect(locked.status == 0, "\(locked.text)")
                let afterLock = await runAnswering(first, show, prompt: Self.passphrasePrompt, secret: "correct horse", prefix: [])
                #expect(afterLock.prompts == 1 && afterLock.status == 0, "\(afterLock.text)")
                #expect(!agentLog.contains("correct horse"))
            } cleanup: {
                await second.close()
            }
        } cleanup: {
            await first.close()
        }
    }

    /// The protocol: a scope that kept no key gets none, and a process without a terminal keeps none.
    @Test func aKeyRequestWithoutAWindowGetsNothing() async throws {
        let agent = try await startAgent()
        defer { agent.terminate() }
        let keyFile = String(repeating: "ab", count: 32)
        let asked = try client.exchange(.storeKey(store: "/nowhere/biometrics-vault", keyFile: keyFile), storeKey: nil, startingAgent: false)
        #expect(asked.response == .storeKey(found: false) && asked.storeKey == nil)
        let tty = open("/dev/tty", O_RDWR)
        if tty >= 0 {
            close(tty)
        } else {
            let kept = try client.exchange(
                .keepStoreKey(store: "/nowhere/biometrics-vault", keyFile: keyFile, seconds: 60),
                storeKey: SecretBytes([UInt8](repeating: 7, count: 32)), startingAgent: false)
            #expect(kept.response == .refused(reason: "the process has no controlling terminal: no unlock window"))
            let again = try client.exchange(.storeKey(store: "/nowhere/biometrics-vault", keyFile: keyFile), storeKey: nil, startingAgent: false)
            #expect(again.response == .storeKey(found: false))
        }
        // A key request without its key is refused before anything is sent.
        let client = client
        #expect(throws: VaultError.self) {
            try client.exchange(.keepStoreKey(store: "/s", keyFile: keyFile, seconds: 60), storeKey: nil, startingAgent: false)
        }
    }

    /// An unlocked key opens its store only while the key file is the one it came from (here: a new
    /// store's, as after `reset`), and makes no key file where there is none.
    @Test func anUnlockedKeyOpensOnlyItsKeyFile() throws {
        let directory = sandbox.root.appendingPathComponent("unlocked-store")
        try EncryptedFileStore.createKey(directory: directory, source: .keyFile)
        let unlocked = try #require(try EncryptedFileStore.unlockKey(directory: directory, source: .keyFile))
        #expect(try EncryptedFileStore.keyFileDigest(directory: directory) == unlocked.keyFileDigest)
        _ = try EncryptedFileStore(directory: directory, keySource: .unlocked(unlocked))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("master.key"))
        #expect(throws: VaultError(.storeLocked)) {
            try EncryptedFileStore(directory: directory, keySource: .unlocked(unlocked)).write(
                StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes([1])), for: SecretItemID(service: "s", key: "k"), if: .anything,
                authorization: nil)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("master.key").path), "the refused write made a key file")
        try EncryptedFileStore.createKey(directory: directory, source: .keyFile)
        #expect(throws: VaultError(.storeLocked)) { try EncryptedFileStore(directory: directory, keySource: .unlocked(unlocked)) }
    }
}

/// swtpm run as the test user (so the CLI, run as that user, can reach its socket), in `directory`.
final class UserSoftwareTPM {
    let directory: URL
    private let process: ChildProcess
    var tcti: String { "swtpm:path=\(socket)" }
    private var socket: String { directory.appendingPathComponent("tpm.sock").path }

    static var binary: String? {
        if let path = ProcessInfo.processInfo.environment["BV_SWTPM"], !path.isEmpty { return path }
        return ["/usr/bin/swtpm", "/usr/local/bin/swtpm"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(user: String, directory: URL) async throws {
        self.directory = directory
        guard let binary = Self.binary else { throw SoftwareTPMNotStarted() }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        try await Shell.run("/bin/chown", ["-R", user, directory.path])
        let socket = directory.appendingPathComponent("tpm.sock").path
        process = try await ChildProcess.start("/usr/sbin/runuser", [
            "-u", user, "--", binary, "socket", "--tpm2", "--tpmstate", "dir=\(directory.appendingPathComponent("state").path)",
            "--server", "type=unixio,path=\(socket)", "--ctrl", "type=unixio,path=\(socket).ctrl",
            "--flags", "not-need-init,startup-clear", "--pid", "file=\(directory.appendingPathComponent("pid").path)",
        ])
        for _ in 0..<500 {
            if FileManager.default.fileExists(atPath: socket), FileManager.default.fileExists(atPath: socket + ".ctrl") { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        throw SoftwareTPMNotStarted()
    }

    /// Kills swtpm (by the pid it wrote: it ignores SIGTERM while it waits for a client), and runuser;
    /// swift-subprocess reaps runuser.
    func stop() {
        if let text = try? String(contentsOf: directory.appendingPathComponent("pid"), encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        {
            kill(pid, SIGKILL)
        }
        process.terminate()
    }
}


struct SoftwareTPMNotStarted: Error {}
#endif
