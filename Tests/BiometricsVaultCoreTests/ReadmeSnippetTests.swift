import Foundation
import Testing

/// The README's code blocks are the compiled snippets, character for character.
struct ReadmeSnippetTests {
    @Test(arguments: ["ReadmeUsage", "ReadmeScenePhase"])
    func readmeBlockMatchesTheCompiledSnippet(_ name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let snippet = try String(contentsOf: root.appending(path: "Snippets/\(name).swift"), encoding: .utf8)
        let readme = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8)
        let shown = try #require(snippet.components(separatedBy: "// snippet.show\n").last?
            .components(separatedBy: "// snippet.hide").first)
        let marker = "<!-- snippet:\(name) -->\n```swift\n"
        try #require(readme.contains(marker), "README.md has no \(marker)")
        let block = try #require(readme.components(separatedBy: marker).last?
            .components(separatedBy: "```\n<!-- /snippet -->").first)
        #expect(block.trimmingCharacters(in: .newlines) == shown.trimmingCharacters(in: .newlines))
    }
}
