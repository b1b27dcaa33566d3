import Foundation

extension CredentialsInputOptions {
    /// The most stdin/file bytes read: well above the vault's 64 KiB limit, so the vault reports
    /// `credentialsTooLarge` for anything between, and nothing unbounded is buffered.
    static let readLimit = 1 << 20

    /// Reads and parses the credentials JSON.
    func readCredentials() throws(CLIFailure) -> JSONValue {
        let source: String
        let handle: FileHandle
        if let path = fromFile, path != "-" {
            source = "--from-file"
            guard let file = FileHandle(forReadingAtPath: path) else {
                throw .badInput("cannot read --from-file \(path)")
            }
            handle = file
        } else {
            source = "stdin"
            handle = .standardInput
            if isatty(STDIN_FILENO) == 1 {
                Console.err("Type or paste the credentials JSON, then press Ctrl-D:")
            }
        }
        var data = Data()
        while data.count <= Self.readLimit {
            let chunk: Data
            do {
                guard let read = try handle.read(upToCount: 64 * 1024), !read.isEmpty else { break }
                chunk = read
            } catch {
                throw .badInput("cannot read \(source)")
            }
            data.append(chunk)
        }
        defer { data.resetBytes(in: data.startIndex..<data.endIndex) }
        guard data.count <= Self.readLimit else { throw .badInput("\(source) is larger than 1 MiB") }
        return try JSONValue.parse(data, source: source)
    }
}
