// The encrypted file store against bare POSIX baselines, measured side by side (interleaved) in one run.
// Run it through Benchmarks/run-file-store.sh (release build, populates the item stores first).
//
//   FileStoreBenchmark populate <dir> <count>      <count> items in <dir>/store-<count> (service "bench"),
//                                                  plus <count> bare files of the same size in <dir>/bare-<count>
//   FileStoreBenchmark writes <dir> [iterations]   durable store write vs bare fsync'd write+rename
//   FileStoreBenchmark reads <dir> <count> [iterations]
//                                                  store read vs bare open+read+close, at <count> items
//
// Goals (Docs/Benchmarks.md): durable write <= 1.3x the bare durable write; a read at 10,000 items <= 1.2x one at 10.
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

let service = "bench"
let payloadSize = 512

func payload(_ index: Int) -> SecretBytes {
    // JSON-shaped credentials of exactly `payloadSize` bytes.
    let head = "{\"username\":\"user\(index)\",\"token\":\""
    let tail = "\"}"
    return SecretBytes(utf8: head + String(repeating: "t", count: payloadSize - head.utf8.count - tail.utf8.count) + tail)
}

func die(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

func check(_ result: Int32, _ what: String) {
    if result != 0 { die("\(what) failed: errno \(errno)") }
}

// MARK: bare baselines

/// The reference durable write: temp file, write, fsync, close, rename, fsync(dir).
func bareDurableWrite(directory: String, name: String, bytes: [UInt8]) {
    let temporary = directory + "/.tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    if descriptor < 0 { die("open failed: errno \(errno)") }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
    if written != bytes.count { die("write failed: errno \(errno)") }
    check(fsync(descriptor), "fsync")
    check(close(descriptor), "close")
    check(rename(temporary, directory + "/" + name), "rename")
    let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryDescriptor < 0 { die("open dir failed: errno \(errno)") }
    check(fsync(directoryDescriptor), "fsync dir")
    close(directoryDescriptor)
}

/// The reference read: open, read, close.
func bareRead(_ path: String, into buffer: inout [UInt8]) -> Int {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    if descriptor < 0 { die("open failed: errno \(errno)") }
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
    close(descriptor)
    return count
}

// MARK: timing

func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

struct Stats {
    var median: Double
    var p10: Double
    var p90: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
        median = at(0.5)
        p10 = at(0.1)
        p90 = at(0.9)
    }

    func line(_ label: String, unit: Double, unitName: String) -> String {
        String(format: "  %-44@ median %9.2f %@  (p10 %9.2f, p90 %9.2f)", label as NSString, median / unit, unitName as NSString, p10 / unit, p90 / unit)
    }
}

func storeURL(_ directory: String, _ count: Int) -> URL {
    URL(fileURLWithPath: directory).appendingPathComponent("store-\(count)", isDirectory: true)
}

func itemFileSize(in root: URL) -> Int {
    guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { die("no store at \(root.path)") }
    for case let path as String in enumerator where path.hasSuffix(".bvi") {
        let attributes = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
        if let size = attributes?[.size] as? Int { return size }
    }
    die("no item file under \(root.path)")
}

// MARK: modes

func populate(directory: String, count: Int) throws {
    let root = storeURL(directory, count)
    let store = try EncryptedFileStore(directory: root)
    let start = ContinuousClock.now
    for index in 0..<count {
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: payload(index)), for: SecretItemID(service: service, key: "user\(index)"), authorization: nil)
    }
    let size = itemFileSize(in: root)
    let bare = directory + "/bare-\(count)"
    try FileManager.default.createDirectory(atPath: bare, withIntermediateDirectories: true)
    let bytes = [UInt8](repeating: 0x5A, count: size)
    for index in 0..<count {
        guard FileManager.default.createFile(atPath: bare + "/\(index).bin", contents: Data(bytes)) else { die("cannot create bare files") }
    }
    print("populated \(count) items (\(size)-byte files) in \(ContinuousClock.now - start)")
}

func writes(directory: String, iterations: Int) throws {
    let root = URL(fileURLWithPath: directory).appendingPathComponent("writes-store", isDirectory: true)
    let bare = directory + "/writes-bare"
    try FileManager.default.createDirectory(atPath: bare, withIntermediateDirectories: true)
    let store = try EncryptedFileStore(directory: root)
    let id = try SecretItemID(service: service, key: "writer")
    let item = StoredItem(header: ItemHeader(protection: .none), payload: payload(0))
    try store.write(item, for: id, authorization: nil)
    let bytes = [UInt8](repeating: 0x5A, count: itemFileSize(in: root))

    var storeSamples: [Double] = []
    var bareSamples: [Double] = []
    for iteration in 0..<(iterations + 10) {
        // Alternate the order, so neither side always runs right after the other's journal commit.
        var storeTime = 0.0
        var bareTime = 0.0
        if iteration.isMultiple(of: 2) {
            storeTime = try nanoseconds { try store.write(item, for: id, authorization: nil) }
            bareTime = nanoseconds { bareDurableWrite(directory: bare, name: "item.bin", bytes: bytes) }
        } else {
            bareTime = nanoseconds { bareDurableWrite(directory: bare, name: "item.bin", bytes: bytes) }
            storeTime = try nanoseconds { try store.write(item, for: id, authorization: nil) }
        }
        if iteration >= 10 {  // warm-up
            storeSamples.append(storeTime)
            bareSamples.append(bareTime)
        }
    }
    let storeStats = Stats(storeSamples)
    let bareStats = Stats(bareSamples)
    print("durable write, \(payloadSize)-byte credentials (\(bytes.count)-byte file), \(iterations) interleaved pairs:")
    print(storeStats.line("EncryptedFileStore.write", unit: 1000, unitName: "µs"))
    print(bareStats.line("bare write+fsync+rename+fsync(dir)", unit: 1000, unitName: "µs"))
    print(String(format: "  ratio store/bare (medians): %.3fx   (goal <= 1.30x)", storeStats.median / bareStats.median))
    // Ratio per pair, which cancels slow phases of the disk that hit both sides of a pair.
    let pairRatios = zip(storeSamples, bareSamples).map { $0 / $1 }
    print(String(format: "  ratio store/bare (median of per-pair ratios): %.3fx", Stats(pairRatios).median))
}

func reads(directory: String, count: Int, iterations: Int) throws {
    let root = storeURL(directory, count)
    let store = try EncryptedFileStore(directory: root)
    let ids = try (0..<count).map { try SecretItemID(service: service, key: "user\($0)") }
    let bare = directory + "/bare-\(count)"
    var buffer = [UInt8](repeating: 0, count: 128 * 1024)
    var generator = SystemRandomNumberGenerator()
    var storeSamples: [Double] = []
    var bareSamples: [Double] = []
    var checksum = 0
    let expectedPayloads = (0..<count).map(payload)
    for iteration in 0..<(iterations + 100) {
        let index = Int.random(in: 0..<count, using: &generator)
        var storeTime = 0.0
        var bareTime = 0.0
        // The warm-up iterations also check the values; the measured ones only touch the payload.
        let expected = expectedPayloads[index]
        let timedStoreRead = {
            guard let item = try store.read(ids[index], authorization: nil) else { die("item \(index) missing") }
            checksum &+= item.payload?.count ?? 0
            if iteration < 100 && item.payload != expected { die("item \(index) did not read back") }
        }
        if iteration.isMultiple(of: 2) {
            storeTime = try nanoseconds(timedStoreRead)
            bareTime = nanoseconds { checksum &+= bareRead(bare + "/\(index).bin", into: &buffer) }
        } else {
            bareTime = nanoseconds { checksum &+= bareRead(bare + "/\(index).bin", into: &buffer) }
            storeTime = try nanoseconds(timedStoreRead)
        }
        if iteration >= 100 {
            storeSamples.append(storeTime)
            bareSamples.append(bareTime)
        }
    }
    let storeStats = Stats(storeSamples)
    let bareStats = Stats(bareSamples)
    print("read at \(count) items, random keys, warm page cache, \(iterations) interleaved pairs (checksum \(checksum % 997)):")
    print(storeStats.line("EncryptedFileStore.read (incl. AES-GCM open)", unit: 1000, unitName: "µs"))
    print(bareStats.line("bare open+read+close", unit: 1000, unitName: "µs"))
    print(String(format: "  ratio store/bare (medians): %.2fx", storeStats.median / bareStats.median))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { die("usage: FileStoreBenchmark populate|writes|reads <dir> ...") }
do {
    switch arguments[1] {
    case "populate":
        guard arguments.count == 4, let count = Int(arguments[3]) else { die("usage: populate <dir> <count>") }
        try populate(directory: arguments[2], count: count)
    case "writes":
        try writes(directory: arguments[2], iterations: arguments.count > 3 ? Int(arguments[3]) ?? 300 : 300)
    case "reads":
        guard arguments.count >= 4, let count = Int(arguments[3]) else { die("usage: reads <dir> <count> [iterations]") }
        try reads(directory: arguments[2], count: count, iterations: arguments.count > 4 ? Int(arguments[4]) ?? 20_000 : 20_000)
    default:
        die("unknown mode \(arguments[1])")
    }
} catch {
    die("benchmark failed: \(error)")
}
