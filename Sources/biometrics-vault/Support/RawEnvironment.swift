#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The environment as the kernel passed it, byte for byte. `ProcessInfo.environment` decodes every entry
/// as UTF-8, replacing what is not (a Latin-1 value, a file name): `exec` hands COMMAND the caller's
/// environment from here, unchanged.
enum RawEnvironment {
    /// The value of `name`, as bytes; `nil` when it is not set.
    static func value(of name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return Array(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }

    /// Every `NAME=value` entry of the environment, byte for byte, without those whose name `values`
    /// sets and without the CLI's own `TSS2_LOG` (``TPMLibraryLogging``), then `NAME=value` for each of
    /// `values`.
    static func entries(replacing values: [String: String]) -> [[UInt8]] {
        var entries: [[UInt8]] = []
        let ownTSS2Log = TPMLibraryLogging.addedHere ? TPMLibraryLogging.variable : nil
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let current = entry, let pointer = current.pointee {
            let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
            let name = bytes.prefix { $0 != UInt8(ascii: "=") }
            let isOwnTSS2Log = ownTSS2Log.map { $0.utf8.elementsEqual(name) } ?? false
            if !isOwnTSS2Log, !values.keys.contains(where: { $0.utf8.elementsEqual(name) }) { entries.append(bytes) }
            entry = current + 1
        }
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            entries.append(Array(name.utf8) + [UInt8(ascii: "=")] + Array(value.utf8))
        }
        return entries
    }
}
