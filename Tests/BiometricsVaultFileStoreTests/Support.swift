#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultTestSupport
import Foundation
import Testing

/// A private directory (0700, from `mkdtemp`) removed when the last reference goes away.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/bv-filestore-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXFailure(call: "mkdtemp", number: errno) }
        url = URL(fileURLWithPath: String(cString: created), isDirectory: true)
    }

    /// The store root used by most tests: a child of the private directory, created by the store.
    var storeURL: URL { url.appendingPathComponent("store", isDirectory: true) }

    deinit {
        // Undo permission changes made by a test so the removal cannot fail half-way.
        _ = chmod(url.path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }
}

struct POSIXFailure: Error, CustomStringConvertible {
    var call: String
    var number: Int32
    var description: String { "\(call) failed: errno \(number)" }
}

let plainHeader = ItemHeader(protection: .none)

func item(_ text: String, _ header: ItemHeader = plainHeader) -> StoredItem {
    StoredItem(header: header, payload: SecretBytes(utf8: text))
}

func text(of item: StoredItem?) -> String? {
    item?.payload.map { String(decoding: $0.copyBytes(), as: UTF8.self) }
}

/// Every regular file under `root` (recursively), with its bytes.
func allFiles(under root: URL) throws -> [(path: String, bytes: [UInt8])] {
    guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
        return []
    }
    var files: [(path: String, bytes: [UInt8])] = []
    for case let url as URL in enumerator where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
        files.append((url.path, Array(try Data(contentsOf: url))))
    }
    return files
}

/// The item files (`*.bvi`) under `root`.
func itemFiles(under root: URL) throws -> [String] {
    try allFiles(under: root).map(\.path).filter { $0.hasSuffix(".bvi") }.sorted()
}

/// The single item file of a store holding exactly one item.
func onlyItemFile(under root: URL) throws -> String {
    let files = try itemFiles(under: root)
    try #require(files.count == 1, "expected one item file, found \(files.count)")
    return files[0]
}

func permissions(of path: String) throws -> UInt32 {
    var info = stat()
    guard stat(path, &info) == 0 else { throw POSIXFailure(call: "stat", number: errno) }
    return UInt32(info.st_mode) & 0o7777
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var index = 0
    while index <= haystack.count - needle.count {
        if haystack[index] == first && Array(haystack[index..<(index + needle.count)]) == needle { return true }
        index += 1
    }
    return false
}

/// Expects `body` to throw a `VaultError` with `code`; returns it.
@discardableResult
func expectVaultError<T>(
    _ code: VaultError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> VaultError? {
    do {
        _ = try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as VaultError {
        #expect(error.code == code, "got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected VaultError.\(code), got \(type(of: error))", sourceLocation: sourceLocation)
        return nil
    }
}

/// The helper executable built beside this test bundle (`FileStoreStressHelper`).
enum StressHelper {
    static let name = "FileStoreStressHelper"

    static func url() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["BV_FILESTORE_HELPER"] {
            return URL(fileURLWithPath: override)
        }
        var starts: [URL] = []
        if let executable = Bundle.main.executableURL { starts.append(executable) }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL)
        starts += Bundle.allBundles.map(\.bundleURL)
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw POSIXFailure(call: "locating \(name) next to the test bundle (build it: swift build)", number: ENOENT)
    }

    /// Starts the helper with `arguments`; its stdout and stderr are the returned pipes' read ends.
    static func start(_ arguments: [String]) async throws -> (process: ChildProcess, output: FileHandle, errors: FileHandle) {
        let child = try await Shell.spawn(try url().path, arguments)
        close(child.stdin)
        return (
            child.process, FileHandle(fileDescriptor: child.stdout, closeOnDealloc: true),
            FileHandle(fileDescriptor: child.stderr, closeOnDealloc: true)
        )
    }

    /// Runs the helper to completion; returns its exit status, stdout and stderr.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let result = try await Shell.run(try url().path, arguments)
        return (result.status, result.stdout, result.stderr)
    }
}
