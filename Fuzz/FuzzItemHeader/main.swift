// libFuzzer target: `ItemHeader(attributeValue:)`, the parser of the header text that the Secret Service
// store keeps as an item attribute (untrusted: any same-user client can edit attributes, e.g. with
// `secret-tool`).
//
// Invariants, for every input:
// - parsing never traps (AddressSanitizer is on);
// - a rejected header is `corruptedItem`, never another code;
// - an accepted header prints (`attributeValue`) to a text that parses back to the same header, and that
//   printed form is a fixed point (printing it again gives the same text).
#if os(Linux)
import BiometricsVaultCore
import FuzzSupport

func checkHeader(_ text: String) {
    let header: ItemHeader
    do {
        header = try ItemHeader(attributeValue: text)
    } catch {
        fuzzRequire(error.code == .corruptedItem, "rejection is corruptedItem, got \(error.code)")
        return
    }
    fuzzRequire(header.formatVersion == ItemHeader.currentFormatVersion, "only the current format is accepted")
    let printed = header.attributeValue
    let reparsed = try? ItemHeader(attributeValue: printed)
    fuzzRequire(reparsed == header, "the printed header parses back to the same header")
    fuzzRequire(reparsed?.attributeValue == printed, "the printed form is a fixed point")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzItemHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // Attribute values reach us as UTF-8 C strings from libsecret; invalid UTF-8 is repaired on the
    // way into a Swift String, as the store does.
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    checkHeader(text)
    return 0
}

runLibFuzzer(fuzzItemHeader)
#endif
