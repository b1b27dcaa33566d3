// Drives one SecretServiceStore from stdin, for the tests that need the store in a process of its own:
// a private session bus (DBUS_SESSION_BUS_ADDRESS) whose gnome-keyring the test locks, restarts or
// removes while this process, and its connection, stay alive. Not shipped in any product.
//
// One command per line, one answer per line:
//   init [MS [never]] | init-why | prepared-init | prepare MS | probe | write SERVICE KEY plain|protected VALUE | read SERVICE KEY | delete SERVICE KEY | keys SERVICE
// Answers: "ok", "none", "item plain|protected VALUE", "keys a,b", "available", "locked",
// "unavailable CODE", "error CODE"; `init`, `prepared-init` and `probe` append the elapsed milliseconds;
// `init-why` is `init` answering "error CODE: UNDERLYING" on failure.
// `prepared-init` is `init` right after `SecretServiceStore.prepareConnection()` (default timeout), so it
// meets that connection while it is still being opened; `prepare MS` only starts a prepared connection
// with that timeout, and `init MS` gives the store that timeout (default 1 s); `init MS never` makes a
// store that never runs a provider's prompt (SecretServicePrompts.never).
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import Glibc

/// One answer line, written at once (unbuffered: the test waits for it).
func emit(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
}

var store: SecretServiceStore?
let clock = ContinuousClock()

func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(seconds * 1000 + attoseconds / 1_000_000_000_000_000) + "ms"
}

func answer(_ body: () throws -> String) -> String {
    do { return try body() } catch let error as VaultError { return "error \(error.code)" } catch { return "error other" }
}

while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    guard let command = words.first else { continue }
    let reply: String
    switch command {
    case "init":
        let timeout = words.count >= 2 ? Int(words[1]).map { Duration.milliseconds($0) } ?? .seconds(1) : .seconds(1)
        let prompts: SecretServicePrompts = words.count == 3 && words[2] == "never" ? .never : .complete
        let start = clock.now
        let result = answer { store = try SecretServiceStore(timeout: timeout, prompts: prompts); return "ok" }
        reply = "\(result) \(milliseconds(clock.now - start))"
    case "init-why":
        do {
            store = try SecretServiceStore(timeout: .seconds(1))
            reply = "ok"
        } catch let error as VaultError {
            reply = "error \(error.code): \(error.underlying.map { "\($0)" } ?? "")"
        } catch {
            reply = "error other"
        }
    case "prepare" where words.count == 2:
        SecretServiceStore.prepareConnection(timeout: .milliseconds(Int(words[1]) ?? 5000))
        reply = "ok"
    case "prepared-init":
        let start = clock.now
        SecretServiceStore.prepareConnection()
        let result = answer { store = try SecretServiceStore(timeout: .seconds(1)); return "ok" }
        reply = "\(result) \(milliseconds(clock.now - start))"
    case "probe":
        let start = clock.now
        let status = SecretServiceStore.probe()
        let text: String
        switch status {
        case .available: text = "available"
        case .locked: text = "locked"
        case .unavailable(let error): text = "unavailable \(error.code)"
        }
        reply = "\(text) \(milliseconds(clock.now - start))"
    case "write" where words.count == 5:
        reply = answer {
            guard let store else { return "error noStore" }
            let header = words[3] == "plain"
                ? ItemHeader(protection: .none)
                : ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: EnrollmentFingerprint("driver"))
            try store.write(
                StoredItem(header: header, payload: SecretBytes(utf8: words[4])),
                for: SecretItemID(service: words[1], key: words[2]), authorization: nil)
            return "ok"
        }
    case "write-new" where words.count == 4:
        // A plain item written only if the key holds none (the conditional write of `storeToKeychain`).
        reply = answer {
            guard let store else { return "error noStore" }
            try store.write(
                StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: words[3])),
                for: SecretItemID(service: words[1], key: words[2]), if: .absent, authorization: nil)
            return "ok"
        }
    case "read" where words.count == 3:
        reply = answer {
            guard let store else { return "error noStore" }
            guard let item = try store.read(SecretItemID(service: words[1], key: words[2]), authorization: nil) else { return "none" }
            let kind = item.header.protection == .none ? "plain" : "protected"
            return "item \(kind) " + String(decoding: item.payload?.copyBytes() ?? [], as: UTF8.self)
        }
    case "delete" where words.count == 3:
        reply = answer {
            guard let store else { return "error noStore" }
            try store.delete(SecretItemID(service: words[1], key: words[2]))
            return "ok"
        }
    case "keys" where words.count == 2:
        reply = answer {
            guard let store else { return "error noStore" }
            return "keys " + (try store.keys(service: words[1])).joined(separator: ",")
        }
    default:
        reply = "error badCommand"
    }
    emit(reply)
}
#else
print("Linux only")
#endif
