/// Runs `body`, then `cleanup` whether `body` returned or threw: a `defer` whose cleanup awaits (a child
/// process that undoes what the test set up), which a `defer` body cannot.
package func withCleanup<Value>(
    _ body: () async throws -> Value, cleanup: () async -> Void
) async throws -> Value {
    let value: Value
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}

extension Sequence {
    /// `map` whose transform awaits, one element after the other (the runs it starts share a terminal).
    package func asyncMap<Transformed>(_ transform: (Element) async throws -> Transformed) async rethrows -> [Transformed] {
        var results: [Transformed] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
