// libFuzzer target: `VaultEnvelope.decode`, the parser of the bytes a file-store item or a keychain
// item holds (untrusted: anyone who can write the store can put anything there).
//
// Invariants, for every input:
// - decoding never traps, leaks or reads out of bounds (AddressSanitizer is on);
// - a rejected input is `corruptedItem`, never another code;
// - an accepted input is canonical: re-encoding the decoded item gives back exactly the input bytes,
//   and both decode entry points (raw buffer, `SecretBytes`) agree.
//
// Input modes, chosen by the first byte, so that mutations reach past the checksum:
// - even: the rest is the envelope as is (exercises magic, length and checksum rejection);
// - odd: the rest is an envelope body, and the harness appends its correct CRC-32.
#if os(Linux)
import BiometricsVaultCore
import FuzzSupport

/// Decodes through the raw-buffer entry point, the one stores call on bytes they read.
func decodeRaw(_ envelope: [UInt8]) -> Result<StoredItem, VaultError> {
    envelope.withUnsafeBytes { raw in
        do throws(VaultError) { return .success(try VaultEnvelope.decode(raw)) } catch { return .failure(error) }
    }
}

func checkEnvelope(_ envelope: [UInt8]) {
    let fromBuffer: StoredItem
    switch decodeRaw(envelope) {
    case .failure(let error):
        fuzzRequire(error.code == .corruptedItem, "rejection is corruptedItem, got \(error.code)")
        fuzzRequire((try? VaultEnvelope.decode(SecretBytes(envelope))) == nil, "both decoders reject")
        return
    case .success(let item):
        fromBuffer = item
    }
    fuzzRequire(fromBuffer.payload != nil, "an envelope always carries a payload")
    fuzzRequire(fromBuffer.payload!.count <= VaultLimits.maximumCredentialsSize, "payload within the limit")
    let fromSecretBytes = try? VaultEnvelope.decode(SecretBytes(envelope))
    fuzzRequire(fromSecretBytes == fromBuffer, "both decoders agree")
    let reencoded = VaultEnvelope.encode(fromBuffer)
    fuzzRequire(reencoded.copyBytes() == envelope, "an accepted envelope is canonical")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    var envelope = Array(input.dropFirst())
    if mode & 1 == 1 {
        let crc = CRC32.checksum(envelope)
        envelope += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }
    checkEnvelope(envelope)
    return 0
}

runLibFuzzer(fuzzEnvelope)
#endif
