import Foundation

/// One directory per test process for every test's files, removed when the process exits (they may
/// hold test credentials; a test that forgets to clean up must not leave them in /tmp).
package enum TestScratch {
    package static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bv-test-run-\(getpid())-\(UUID().uuidString.prefix(8))")
        // 0711: tests that run the CLI as the test user chown their own sandbox inside; others cannot list it.
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        atexit { try? FileManager.default.removeItem(at: TestScratch.directory) }
        return url
    }()

    /// A fresh directory of its own inside ``directory``.
    package static func newDirectory(_ prefix: String = "bv") throws -> URL {
        // Short: Unix socket paths inside it (a private bus, a keyring's control socket) have 107 bytes.
        let url = directory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The package's root directory (this file is Tests/BiometricsVaultTestSupport/Scratch.swift).
package func repositoryRoot(file: StaticString = #filePath) -> URL {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A failure a test helper reports in words.
package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension String {
    /// Parses the text as a JSON object (for `--json` output).
    package var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}
