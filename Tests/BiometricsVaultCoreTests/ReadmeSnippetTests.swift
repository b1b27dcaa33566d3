import Foundation
import Testing

/// The README's usage code is the compiled snippet, character for character.
struct ReadmeSnippetTests {
    @Test func readmeUsageMatchesTheCompiledSnippet() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let snippet = try String(contentsOf: root.appending(path: "Snippets/ReadmeUsage.swift"), encoding: .utf8)
        let readme = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8)
        let shown = try #require(snippet.components(separatedBy: "// snippet.show\n").last?
            .components(separatedBy: "// snippet.hide").first)
        let block = try #require(readme.components(separatedBy: "<!-- snippet:ReadmeUsage -->\n```swift\n").last?
            .components(separatedBy: "```\n<!-- /snippet -->").first)
        #expect(block.trimmingCharacters(in: .newlines) == shown.trimmingCharacters(in: .newlines))
    }
}
