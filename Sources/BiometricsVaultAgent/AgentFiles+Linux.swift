#if os(Linux)
import BiometricsVaultCore
import Glibc

/// The small files the CLI reads (its config file), and removing the agent's socket file.
extension AgentSocket {
    static func removeFile(_ path: String) { unlink(path) }

    /// The text of the file at `path`: `nil` when it does not exist; a failure when it cannot be read or is
    /// longer than `limit` bytes.
    package static func readSmallFile(_ path: String, limit: Int) -> Result<String?, VaultError> {
        // Non-blocking: opening a FIFO for reading would wait for a writer, and a device might never end.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let failure = errno
            if failure == ENOENT { return .success(nil) }
            return .failure(VaultError(.storeUnavailable, underlying: .file(operation: "open", path: path, errno: failure)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return .failure(VaultError(.storeUnavailable, underlying: .file(operation: "stat", path: path, errno: errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .failure(VaultError(.storeUnavailable, underlying: .message("\(CLIConfigFile.displayed(path)) is not a regular file")))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = read(descriptor, &chunk, chunk.count)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return .failure(VaultError(.storeUnavailable, underlying: .file(operation: "read", path: path, errno: errno))) }
            if got == 0 { break }
            bytes += chunk[..<got]
            guard bytes.count <= limit else {
                return .failure(VaultError(.storeUnavailable, underlying: .message("\(path) is longer than \(limit) bytes")))
            }
        }
        return .success(String(decoding: bytes, as: UTF8.self))
    }
}
#endif
