import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultTPM
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The file store's key sealed by a real TPM (swtpm), through the CLI's `key` verbs and the library,
/// cross-checked with tpm2-tools. Every test checks that no transient object is left in the TPM.
@Suite("TPM sealing", .onTestThreads, .serialized, .needs(SoftwareTPM.need))
struct TPMSealingTests {
    static let credentials = #"{"token":"s3cr3t"}"#

    /// The shared TPM from scripts/setup/40-swtpm.sh (`name`), or one of the test's own.
    static func withTPM(_ name: String, _ body: (String) async throws -> Void) async throws {
        if let tcti = ProcessInfo.processInfo.environment[name], !tcti.isEmpty {
            try await body(tcti)
            return
        }
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        try await body(tpm.tcti)
    }

    static func expectNoTransientObjects(_ tcti: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        await #expect(try SoftwareTPM.transientHandles(tcti: tcti) == "", "transient objects left in the TPM", sourceLocation: sourceLocation)
    }

    /// A store in the sandbox with one item in it, under a plain key file.
    static func storeOneItem(_ sandbox: CLISandbox) async throws {
        let stored = try await sandbox.run(["store", "github", "--store", "file"], stdin: credentials)
        #expect(stored.status == 0, "\(stored.stderr)")
    }

    /// tpm2-tss's own log lines (`WARNING:esys:src/...`): the CLI's error says it all, so none may show.
    static func tss2LogLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { line in
            ["ERROR:", "WARNING:", "INFO:", "DEBUG:", "TRACE:"].contains { line.hasPrefix($0) }
        }
    }

    static func show(_ sandbox: CLISandbox, tcti: String? = nil) async throws -> CLIResult {
        try await sandbox.run(["show", "github", "--store", "file"], tcti: tcti)
    }

    @Test func roundTripKeyFileToTPMToPassphraseAndBack() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let sandbox = try CLISandbox(tcti: tcti)
            defer { sandbox.remove() }
            try await Self.storeOneItem(sandbox)

            let sealed = try await sandbox.run(["key", "seal", "--tpm", "--json"])
            #expect(sealed.status == 0, "\(sealed.stderr)")
            #expect(sealed.stdout.jsonObject?["source"] as? String == "tpm")
            try await Self.expectNoTransientObjects(tcti)
            #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .sealed(mechanism: 1, usesPIN: false))
            // The key file no longer holds the key: its bytes are the TPM blob.
            let keyFile = try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key"))
            #expect(keyFile.count > 100)

            let shown = try await Self.show(sandbox)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("s3cr3t"))
            try await Self.expectNoTransientObjects(tcti)

            let status = try await sandbox.run(["key", "status", "--json"])
            let object = status.stdout.jsonObject
            #expect(object?["source"] as? String == "tpm")
            #expect((object?["tpm"] as? [String: Any])?["reachable"] as? Bool == true)

            // Later commands just work: a second item goes into the sealed store.
            #expect(try await sandbox.run(["store", "second", "--store", "file"], stdin: "42").status == 0)

            let passphrase = try await sandbox.run(["key", "passphrase", "--passphrase-stdin"], stdin: "correct horse\n")
            #expect(passphrase.status == 0, "\(passphrase.stderr)")
            #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .passphrase)
            let byPassphrase = try EncryptedFileStore(directory: sandbox.storeDirectory, keySource: .passphrase(SecretBytes(utf8: "correct horse")))
            #expect(try byPassphrase.keys(service: "biometrics-vault") == ["github", "second"])

            let back = try await sandbox.run(["key", "unseal", "--passphrase-stdin"], stdin: "correct horse\n")
            #expect(back.status == 0, "\(back.stderr)")
            #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .keyFile)
            await #expect(try Self.show(sandbox).stdout.contains("s3cr3t"))
            try await Self.expectNoTransientObjects(tcti)
        }
    }

    @Test func libraryRoundTripWithPIN() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let directory = URL(fileURLWithPath: "/tmp/bv-tpm-lib-\(UUID().uuidString.prefix(8))/store")
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            let pin = SecretBytes(utf8: "2468")
            let store = try EncryptedFileStore(directory: directory, keySource: .sealed(TPMSealer(tpm: TPMConfiguration(tcti: tcti), pin: .given(pin))))
            let id = try SecretItemID(service: "svc", key: "k")
            try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: "payload")), for: id, authorization: nil)
            try await Self.expectNoTransientObjects(tcti)

            let reopened = try EncryptedFileStore(directory: directory, keySource: .sealed(TPMSealer(tpm: TPMConfiguration(tcti: tcti), pin: .given(pin))))
            #expect(try reopened.read(id, authorization: nil)?.payload == SecretBytes(utf8: "payload"))
            #expect(try EncryptedFileStore.keyProtection(directory: directory) == .sealed(mechanism: 1, usesPIN: true))
            // A PIN-sealed store opened without the TPM source says so instead of reading garbage.
            #expect(throws: VaultError.self) { try EncryptedFileStore(directory: directory) }
            try await Self.expectNoTransientObjects(tcti)
        }
    }

    @Test func storeCopiedToASecondTPMDoesNotDecrypt() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { first in
            try await Self.withTPM("BV_TPM_TCTI_SECOND") { second in
                let sandbox = try CLISandbox(tcti: first)
                defer { sandbox.remove() }
                try await Self.storeOneItem(sandbox)
                #expect(try await sandbox.run(["key", "seal", "--tpm"]).status == 0)

                // The same files on another machine: exit 6, in words, and nothing changed.
                let before = try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key"))
                let elsewhere = try await Self.show(sandbox, tcti: second)
                #expect(elsewhere.status == 6)
                #expect(elsewhere.stderr.contains("sealed by another TPM"), "\(elsewhere.stderr)")
                #expect(!elsewhere.stdout.contains("s3cr3t"))
                let unsealElsewhere = try await sandbox.run(["key", "unseal"], tcti: second)
                #expect(unsealElsewhere.status == 6)
                #expect(try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key")) == before)
                try await Self.expectNoTransientObjects(second)

                // Still fine on its own TPM.
                await #expect(try Self.show(sandbox, tcti: first).stdout.contains("s3cr3t"))
                try await Self.expectNoTransientObjects(first)
            }
        }
    }

    @Test("a PIN-sealed or passphrase store used by scripts: show, store, update and list take the secret from stdin's first line")
    func dataVerbsReadTheStoreSecretFromStdin() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let sandbox = try CLISandbox(tcti: tcti)
            defer { sandbox.remove() }
            try await Self.storeOneItem(sandbox)
            #expect(try await sandbox.run(["key", "seal", "--tpm", "--pin-stdin"], stdin: "2468\n").status == 0)
            // No terminal, no flag: nothing is tried.
            await #expect(try Self.show(sandbox).status == 7)
            let shown = try await sandbox.run(["--pin-stdin", "show", "github", "--store", "file"], stdin: "2468\n")
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("s3cr3t"))
            // The PIN line, then the credentials JSON.
            let stored = try await sandbox.run(["store", "second", "--store", "file", "--pin-stdin"], stdin: "2468\n{\"a\":1}\n")
            #expect(stored.status == 0, "\(stored.stderr)")
            let updated = try await sandbox.run(["update", "second", "--store", "file", "--pin-stdin"], stdin: "2468\n{\"a\":2}")
            #expect(updated.status == 0, "\(updated.stderr)")
            let listed = try await sandbox.run(["list", "--store", "file", "--pin-stdin"], stdin: "2468\n")
            #expect(listed.stdout == "github\nsecond\n", "\(listed.stderr)")
            #expect(try await sandbox.run(["show", "second", "--store", "file", "--pin-stdin"], stdin: "0000\n").status == 4)
            // Clear the one failed try again (the shared TPM allows 3).
            _ = try await SoftwareTPM.tools("tpm2_dictionarylockout", ["-c"], tcti: tcti)

            // The same with a passphrase.
            #expect(try await sandbox.run(["key", "passphrase", "--pin-stdin", "--passphrase-stdin"], stdin: "2468\ncorrect horse\n").status == 0)
            let viaPassphrase = try await sandbox.run(["show", "second", "--store", "file", "--passphrase-stdin"], stdin: "correct horse\n")
            #expect(viaPassphrase.stdout.contains(#""a":2"#), "\(viaPassphrase.stderr)")
            #expect(try await sandbox.run(["show", "second", "--store", "file", "--passphrase-stdin"], stdin: "wrong horse\n").status == 4)
            try await Self.expectNoTransientObjects(tcti)
        }
    }

    @Test("doctor --json shows the TPM: reachable, its failed-PIN counter and the most tries it allows")
    func doctorJSONShowsTheTPM() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let sandbox = try CLISandbox(tcti: tcti)
            defer { sandbox.remove() }
            let doctor = try await sandbox.run(["doctor", "--json", "--store", "file"])
            #expect(doctor.status == 0, "\(doctor.stderr)")
            let tpm = doctor.stdout.jsonObject?["tpm"] as? [String: Any]
            #expect(tpm?["reachable"] as? Bool == true, "\(doctor.stdout)")
            #expect(tpm?["lockoutCounter"] is Int)
            #expect(tpm?["maxTries"] as? Int == 3)
            #expect(doctor.stdout.jsonObject?["components"] != nil, "the diagnosis is still there")
            let noTPM = try await sandbox.run(["doctor", "--json", "--store", "file"], tcti: "swtpm:path=/nonexistent/bv-no-tpm.sock")
            #expect((noTPM.stdout.jsonObject?["tpm"] as? [String: Any])?["reachable"] as? Bool == false, "\(noTPM.stdout)")
            try await Self.expectNoTransientObjects(tcti)
        }
    }

    /// A `key unseal` killed between writing its temporary plain key file and the rename must not leave
    /// the plain key beside a store that is still sealed: the next command removes it.
    @Test func plainKeyLeftByAnInterruptedUnsealIsRemoved() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let sandbox = try CLISandbox(tcti: tcti)
            defer { sandbox.remove() }
            try await Self.storeOneItem(sandbox)
            let plain = try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key"))
            #expect(try await sandbox.run(["key", "seal", "--tpm"]).status == 0)
            let leftover = sandbox.storeDirectory.appendingPathComponent(".master.key.0123456789abcdef")
            try plain.write(to: leftover)
            await #expect(try Self.show(sandbox).stdout.contains("s3cr3t"))
            #expect(!FileManager.default.fileExists(atPath: leftover.path))
            try await Self.expectNoTransientObjects(tcti)
        }
    }

    @Test func damagedSealedKeyFileIsCorruptNotAWrongPIN() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let sandbox = try CLISandbox(tcti: tcti)
            defer { sandbox.remove() }
            try await Self.storeOneItem(sandbox)
            #expect(try await sandbox.run(["key", "seal", "--tpm"]).status == 0)
            let path = sandbox.storeDirectory.appendingPathComponent("master.key")
            var bytes = try Data(contentsOf: path)
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: path)
            let shown = try await Self.show(sandbox)
            #expect(shown.status == 11, "\(shown.stderr)")
            try await Self.expectNoTransientObjects(tcti)
        }
    }

    /// What cannot be a TPM PIN is refused as bad input (8) before the TPM is asked: NUL bytes (the TPM
    /// drops trailing zeros, so all-NUL would equal no PIN) and more than 32 bytes. Nothing is changed.
    @Test(arguments: ["\u{0}\u{0}", "12\u{0}", String(repeating: "7", count: 33)])
    func invalidPINIsBadInput(pin: String) async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try await Self.withTPM("BV_TPM_TCTI") { tcti in
            let sandbox = try CLISandbox(tcti: tcti)
            defer { sandbox.remove() }
            try await Self.storeOneItem(sandbox)
            let before = try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key"))
            let sealed = try await sandbox.run(["key", "seal", "--tpm", "--pin-stdin"], stdin: pin + "\n")
            #expect(sealed.status == 8, "\(sealed.stderr)")
            #expect(sealed.stderr.contains("PIN"), "\(sealed.stderr)")
            #expect(try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key")) == before)
            #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .keyFile)
            try await Self.expectNoTransientObjects(tcti)
        }
    }
}

/// The TPM tests that start a TPM of their own (or reach none): they share no TPM state, so they run
/// beside each other and beside the rest of the run, not in the serialized suite above.
@Suite("TPM sealing, each test on a TPM of its own", .onTestThreads, .needs(SoftwareTPM.need))
struct TPMOwnDeviceTests {
    @Test func tpmGoneExitsSixAndTheStoreOpensWhenItIsBack() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        let sandbox = try CLISandbox(tcti: tpm.tcti)
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        #expect(try await sandbox.run(["key", "seal", "--tpm"]).status == 0)

        await tpm.stop()
        let gone = try await TPMSealingTests.show(sandbox)
        #expect(gone.status == 6)
        #expect(gone.stderr.contains("cannot reach the TPM"), "\(gone.stderr)")
        #expect(TPMSealingTests.tss2LogLines(gone.stderr).isEmpty, "\(gone.stderr)")
        let status = try await sandbox.run(["key", "status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("TPM: unreachable"))
        #expect(try await sandbox.run(["store", "other", "--store", "file"], stdin: "1").status == 6)

        try await tpm.start()
        let back = try await TPMSealingTests.show(sandbox)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.contains("s3cr3t"))
        try await TPMSealingTests.expectNoTransientObjects(tpm.tcti)
    }

    @Test func noTPMDeviceSaysSoAndAccessDeniedSaysJoinTheTssGroup() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        let sandbox = try CLISandbox(tcti: "device:/nonexistent/tpmrm0")
        defer { sandbox.remove() }
        let missing = try await sandbox.run(["key", "seal", "--tpm"])
        #expect(missing.status == 6)
        #expect(missing.stderr.contains("no TPM here"), "\(missing.stderr)")
        #expect(TPMSealingTests.tss2LogLines(missing.stderr).isEmpty, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.storeDirectory.appendingPathComponent("master.key").path))

        // A device node we may not open (as /dev/tpmrm0 is, root:tss 0660, for a user outside tss).
        guard getuid() == 0 else { return }
        let device = sandbox.root.appendingPathComponent("tpmrm0")
        #expect(FileManager.default.createFile(atPath: device.path, contents: nil, attributes: [.posixPermissions: 0o600]))
        chmod(sandbox.root.path, 0o755)
        let denied = try await run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", CLISandbox.binary.path, "key", "status"],
            environment: ["BIOMETRICS_VAULT_TPM_TCTI": "device:\(device.path)", "XDG_DATA_HOME": "/nonexistent"])
        #expect(denied.output.contains("add yourself to the tss group"), "\(denied.output)")
    }

    /// Root only: the library is hidden by a bind mount in a private mount namespace (CI runs as root, and
    /// scripts/test.sh fails a CI run in which it skipped).
    @Test(
        "without tpm2-tss the CLI still starts and stores; the TPM verbs say what to install",
        .enabled(if: getuid() == 0, "hides libtss2-esys with a bind mount: root only"))
    func withoutTPMLibrariesOnlyTheTPMVerbsFail() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "util-linux's unshare is missing")
        let sandbox = try CLISandbox(tcti: "swtpm:path=/nonexistent/bv-no-tpm.sock")
        defer { sandbox.remove() }
        let result = try await sandbox.runHiding(library: "libtss2-esys.so.0", then: "\"$bv\" key seal --tpm\necho \"seal-exit=$?\"")
        let output = result.stdout + result.stderr
        #expect(output.contains("kept"), "\(output)")
        #expect(output.contains("seal-exit=6"), "\(output)")
        #expect(output.contains("could not be loaded here (libtss2-esys.so.0)"), "\(output)")
        #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .keyFile)
    }

    @Test func wrongPINThenDictionaryAttackLockout() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        // A fresh TPM: swtpm allows 3 failures and forgets one every 1000 s.
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        let sandbox = try CLISandbox(tcti: tpm.tcti)
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        let sealed = try await sandbox.run(["key", "seal", "--tpm", "--pin-stdin"], stdin: "1234\n")
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .sealed(mechanism: 1, usesPIN: true))
        let before = try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key"))

        // Without a terminal and without --pin-stdin, nothing is tried (no count against the TPM).
        await #expect(try TPMSealingTests.show(sandbox).status == 7)
        await #expect(try SoftwareTPM.lockoutState(tcti: tpm.tcti).counter == 0)

        for attempt in 1...3 {
            let wrong = try await sandbox.run(["key", "unseal", "--pin-stdin"], stdin: "0000\n")
            #expect(wrong.status == 4, "attempt \(attempt): \(wrong.stderr)")
            #expect(wrong.stderr.contains("wrong PIN"))
            #expect(TPMSealingTests.tss2LogLines(wrong.stderr).isEmpty, "\(wrong.stderr)")
            await #expect(try SoftwareTPM.lockoutState(tcti: tpm.tcti).counter == attempt)
            try await TPMSealingTests.expectNoTransientObjects(tpm.tcti)
        }
        await #expect(try SoftwareTPM.lockoutState(tcti: tpm.tcti).inLockout)

        // Locked out: even the right PIN is refused, with the TPM's recovery time.
        let locked = try await sandbox.run(["key", "unseal", "--pin-stdin"], stdin: "1234\n")
        #expect(locked.status == 5, "\(locked.stderr)")
        #expect(locked.stderr.contains("lockout"))
        #expect(locked.stderr.contains("1000 s"), "\(locked.stderr)")
        #expect(TPMSealingTests.tss2LogLines(locked.stderr).isEmpty, "\(locked.stderr)")
        let status = try await sandbox.run(["key", "status", "--json"]).stdout.jsonObject?["tpm"] as? [String: Any]
        #expect(status?["inLockout"] as? Bool == true)
        #expect(status?["lockoutCounter"] as? Int == 3)
        #expect(status?["maxTries"] as? Int == 3)
        #expect(try Data(contentsOf: sandbox.storeDirectory.appendingPathComponent("master.key")) == before)
        try await TPMSealingTests.expectNoTransientObjects(tpm.tcti)

        // The owner of the TPM clears the lockout (empty lockout authorization on swtpm): the right PIN works.
        await #expect(try tpm.tools("tpm2_dictionarylockout", ["-c"]).status == 0)
        let unsealed = try await sandbox.run(["key", "unseal", "--pin-stdin"], stdin: "1234\n")
        #expect(unsealed.status == 0, "\(unsealed.stderr)")
        await #expect(try TPMSealingTests.show(sandbox).stdout.contains("s3cr3t"))
        try await TPMSealingTests.expectNoTransientObjects(tpm.tcti)
    }

    @Test func killDuringKeySealLeavesAReadableStore() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        let sandbox = try CLISandbox(tcti: tpm.tcti)
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        for round in 0..<16 {
            let sealing = try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .keyFile
            let process = try await sandbox.start(sealing ? ["key", "seal", "--tpm"] : ["key", "unseal"])
            // Varied points in the run: from before the TPM is reached to after the rename.
            try await Task.sleep(for: .microseconds(Int(round * 2_500)))
            kill(process.processIdentifier, SIGKILL)
            try await process.waitUntilExit()
            // Without a kernel resource manager (a direct swtpm socket), a killed client's objects stay
            // loaded; /dev/tpmrm0 flushes them itself. Flush them as it would.
            _ = try await tpm.tools("tpm2_flushcontext", ["-t"])
            _ = try await tpm.tools("tpm2_flushcontext", ["-l"])
            _ = try await tpm.tools("tpm2_flushcontext", ["-s"])
            let shown = try await TPMSealingTests.show(sandbox)
            #expect(shown.status == 0, "round \(round): \(shown.stderr)")
            #expect(shown.stdout.contains("s3cr3t"), "round \(round)")
            if try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) != .keyFile {
                let entries = try FileManager.default.contentsOfDirectory(atPath: sandbox.storeDirectory.path)
                #expect(!entries.contains { $0.hasPrefix(".master.key.") }, "round \(round): \(entries)")
            }
        }
        // And the operation itself still completes afterwards.
        let sealed = try await sandbox.run(["key", "seal", "--tpm"])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .sealed(mechanism: 1, usesPIN: false))
        await #expect(try TPMSealingTests.show(sandbox).stdout.contains("s3cr3t"))
        try await TPMSealingTests.expectNoTransientObjects(tpm.tcti)
    }

    /// A TPM that stops answering (swtpm under SIGSTOP) must not hang the commands that reach it: each
    /// fails (or reports the TPM unreachable) within the deadline, and the store opens once it answers.
    @Test func stoppedTPMIsBoundedByTheTimeout() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        let sandbox = try CLISandbox(tcti: tpm.tcti)
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        #expect(try await sandbox.run(["key", "seal", "--tpm"]).status == 0)

        tpm.pause(true)
        let limit = ["BIOMETRICS_VAULT_TPM_TIMEOUT": "2"]
        let shown = try await sandbox.run(["show", "github", "--store", "file"], environment: limit, within: 20)
        #expect(shown?.status == 6, "\(shown?.stderr ?? "show hung on a stopped TPM")")
        #expect(shown?.stderr.contains("did not answer within 2 s") == true, "\(shown?.stderr ?? "")")
        #expect(shown?.stdout.contains("s3cr3t") == false)
        let status = try await sandbox.run(["key", "status"], environment: limit, within: 20)
        #expect(status?.status == 0, "\(status?.stderr ?? "key status hung on a stopped TPM")")
        #expect(status?.stdout.contains("TPM: unreachable") == true, "\(status?.stdout ?? "")")
        let doctor = try await sandbox.run(["doctor"], environment: limit, within: 20)
        #expect(doctor?.status == 0, "\(doctor?.stderr ?? "doctor hung on a stopped TPM")")
        #expect(doctor?.stdout.contains("did not answer within 2 s") == true, "\(doctor?.stdout ?? "")")

        tpm.pause(false)
        let back = try await TPMSealingTests.show(sandbox)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.contains("s3cr3t"))
    }

    /// Without a resource manager, transient objects left by killed runs stay loaded; once they fill the
    /// TPM (swtpm holds three), the store must still open: leftovers are flushed and the call retried.
    @Test func leftoverTransientObjectsDoNotLockTheStoreOut() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        let sandbox = try CLISandbox(tcti: tpm.tcti)
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        #expect(try await sandbox.run(["key", "seal", "--tpm"]).status == 0)
        // Fill the TPM's object slots as killed clients would (tpm2-tools leaves its primary loaded).
        for index in 0..<3 {
            _ = try await tpm.tools("tpm2_createprimary", ["-C", "o", "-c", sandbox.root.appendingPathComponent("leftover\(index).ctx").path])
        }
        let leftovers = try await SoftwareTPM.transientHandles(tcti: tpm.tcti).split(separator: "\n")
        try #require(leftovers.count >= 3, "the TPM was not filled: \(leftovers)")

        let shown = try await TPMSealingTests.show(sandbox)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("s3cr3t"))
        try await TPMSealingTests.expectNoTransientObjects(tpm.tcti)
    }

    /// A PIN-sealed store opened by a data verb with an invalid PIN on stdin: 8, not a wrong PIN (4).
    @Test func tooLongPINOnADataVerbIsBadInput() async throws {
        try #require(SoftwareTPM.isAvailable, SoftwareTPM.missing)
        let tpm = try await SoftwareTPM()
        defer { tpm.remove() }
        let sandbox = try CLISandbox(tcti: tpm.tcti)
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        #expect(try await sandbox.run(["key", "seal", "--tpm", "--pin-stdin"], stdin: "1234\n").status == 0)
        let shown = try await sandbox.run(["show", "github", "--store", "file", "--pin-stdin"], stdin: String(repeating: "1", count: 40) + "\n")
        #expect(shown.status == 8, "\(shown.stderr)")
        await #expect(try SoftwareTPM.lockoutState(tcti: tpm.tcti).counter == 0, "an invalid PIN must not count against the TPM")
    }

    /// Passphrase lines on stdin are read whole (not cut at 4 KiB); over the documented bound (64 KiB)
    /// they are refused with exit 8, on the key verbs and on the data verbs alike.
    @Test func longPassphraseLinesAreReadWholeOrRefused() async throws {
        let sandbox = try CLISandbox(tcti: "device:/nonexistent/tpmrm0")
        defer { sandbox.remove() }
        try await TPMSealingTests.storeOneItem(sandbox)
        let long = String(repeating: "p", count: 5_000)
        let set = try await sandbox.run(["key", "passphrase", "--passphrase-stdin"], stdin: long + "\n")
        #expect(set.status == 0, "\(set.stderr)")
        let whole = try EncryptedFileStore(directory: sandbox.storeDirectory, keySource: .passphrase(SecretBytes(utf8: long)))
        #expect(try whole.keys(service: "biometrics-vault") == ["github"])
        #expect(throws: VaultError.self) {
            try EncryptedFileStore(directory: sandbox.storeDirectory, keySource: .passphrase(SecretBytes(utf8: String(long.prefix(4096)))))
        }
        let shown = try await sandbox.run(["show", "github", "--store", "file", "--passphrase-stdin"], stdin: long + "\n")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("s3cr3t"))

        let huge = String(repeating: "p", count: 70_000) + "\n"
        let refused = try await sandbox.run(["show", "github", "--store", "file", "--passphrase-stdin"], stdin: huge)
        #expect(refused.status == 8, "\(refused.stderr)")
        #expect(refused.stderr.contains("longer than 65536 bytes"), "\(refused.stderr)")
        let refusedKey = try await sandbox.run(["key", "unseal", "--passphrase-stdin"], stdin: huge)
        #expect(refusedKey.status == 8, "\(refusedKey.stderr)")
        #expect(try EncryptedFileStore.keyProtection(directory: sandbox.storeDirectory) == .passphrase)
    }
}
