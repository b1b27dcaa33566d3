// A second (and third...) process for the file store's multi-process tests. Not a product.
//
//   FileStoreStressHelper update <root> <service> <key> <count> <tag>
//       <count> read-modify-write increments of a shared counter under the store's lock; after each one,
//       a plain read that must decode. Exits 0 when all succeeded.
//   FileStoreStressHelper write-loop <root> <service> <keys>
//       Rewrites items k0..k<keys-1> forever with payloads of varying size; prints "ready" after the first
//       round. The test kills it with SIGKILL at a random moment.
//   FileStoreStressHelper fsize-limit <root> <service> <key>
//       Lowers RLIMIT_FSIZE below one item file and writes a large item: prints the error code and errno.
//
// Credentials payloads are "tag:sequence:counter:<padding>"; nothing secret is printed.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BiometricsVaultCore
import BiometricsVaultFileStore
import Foundation

/// Payload of the counter test: who wrote it, its sequence number there, and the shared counter.
struct CounterPayload {
    var tag: String
    var sequence: Int
    var counter: Int

    var bytes: SecretBytes { SecretBytes(utf8: "\(tag):\(sequence):\(counter):" + String(repeating: "p", count: 100 + sequence % 300)) }

    init(tag: String, sequence: Int, counter: Int) {
        self.tag = tag
        self.sequence = sequence
        self.counter = counter
    }

    init?(_ payload: SecretBytes?) {
        guard let payload else { return nil }
        let fields = String(decoding: payload.copyBytes(), as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 4, let sequence = Int(fields[1]), let counter = Int(fields[2]),
            fields[3].allSatisfy({ $0 == "p" }), fields[3].count == 100 + sequence % 300
        else { return nil }
        self.init(tag: String(fields[0]), sequence: sequence, counter: counter)
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

/// Unbuffered, so the test sees it at once (and the kill -9 test can wait for "ready").
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func describe(_ error: any Error) -> String {
    guard let error = error as? VaultError else { return "\(type(of: error))" }
    if let number = error.underlying?.errnoValue { return "\(error.code.name) errno \(number)" }
    return "\(error.code.name) \(error.underlying.map { "\($0)" } ?? "-")"
}

#if canImport(Glibc)
func limitFileSize(to bytes: UInt64) {
    var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
    guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit failed") }
}
#else
func limitFileSize(to bytes: UInt64) {
    var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
    guard setrlimit(RLIMIT_FSIZE, &limit) == 0 else { fail("setrlimit failed") }
}
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: FileStoreStressHelper update|write-loop|fsize-limit <root> <service> ...") }
let root = URL(fileURLWithPath: arguments[2], isDirectory: true)
let service = arguments[3]

do {
    let store = try EncryptedFileStore(directory: root)
    let plain = ItemHeader(protection: .none)
    switch arguments[1] {
    case "update":
        guard arguments.count == 7, let count = Int(arguments[5]) else { fail("usage: update <root> <service> <key> <count> <tag>") }
        let id = try SecretItemID(service: service, key: arguments[4])
        let tag = arguments[6]
        for sequence in 1...count {
            try store.update(id, authorization: nil) { current in
                let counter: Int
                if let current {
                    guard let decoded = CounterPayload(current.payload) else { fail("update saw an undecodable value") }
                    counter = decoded.counter
                } else {
                    counter = 0
                }
                return StoredItem(header: plain, payload: CounterPayload(tag: tag, sequence: sequence, counter: counter + 1).bytes)
            }
            guard let item = try store.read(id, authorization: nil), CounterPayload(item.payload) != nil else {
                fail("a read after update \(sequence) did not decode")
            }
        }
    case "write-loop":
        guard arguments.count == 5, let keys = Int(arguments[4]) else { fail("usage: write-loop <root> <service> <keys>") }
        let ids = try (0..<keys).map { try SecretItemID(service: service, key: "k\($0)") }
        var sequence = 0
        while true {
            for id in ids {
                sequence += 1
                try store.write(StoredItem(header: plain, payload: CounterPayload(tag: "loop", sequence: sequence, counter: sequence).bytes), for: id, authorization: nil)
            }
            if sequence == keys { say("ready") }
        }
    case "fsize-limit":
        guard arguments.count == 5 else { fail("usage: fsize-limit <root> <service> <key>") }
        let id = try SecretItemID(service: service, key: arguments[4])
        // Without this the kernel kills us with SIGXFSZ instead of failing the write with EFBIG.
        signal(SIGXFSZ, SIG_IGN)
        limitFileSize(to: 4096)
        do {
            try store.write(StoredItem(header: plain, payload: SecretBytes([UInt8](repeating: 0x41, count: 32 * 1024))), for: id, authorization: nil)
            say("no error")
        } catch {
            say(describe(error))
        }
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("error: \(describe(error))")
}
