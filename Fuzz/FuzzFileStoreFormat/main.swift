// libFuzzer target: the encrypted file store's on-disk formats, the bytes anyone who can write the store
// directory (or restore a backup into it) controls.
//
// The first input byte picks what the rest is:
// - 0 (mod 3): a whole item file, opened with a fixed store key. Without that key nothing can pass
//   AES-GCM, so every input must be rejected as `corruptedItem`, and the header checks before
//   decryption must never trap on short or odd files.
// - 1 (mod 3): a protection byte and an item *plaintext* (key length, key, envelope). The harness seals it
//   with the store key, as a writer holding the key would, so the parser behind authentication is
//   exercised: it must never trap, must reject as `corruptedItem`, and anything it accepts must seal
//   back through `ItemFile.seal` and open to the same key and item.
// - 2 (mod 3): the store's key file (`master.key`), written to a private temporary directory and loaded as
//   a key-file store and as a passphrase store. Damage is `corruptedItem`; a key file of the other kind
//   is `authenticationFailed` / `storeLocked`; nothing traps. A passphrase file whose scrypt cost is
//   reasonable but not the minimum (2^10, 1, 1) is loaded only as a key-file store: deriving a key at
//   such costs is slow by design (the loader bounds it at 2^20 x 16 x 4) and parses nothing more.
//
// `@testable` reaches the internal `ItemFile` and `KeyFile` parsers; SwiftPM's debug builds (the only ones
// scripts/fuzz.sh makes) enable testing.
#if os(Linux)
import BiometricsVaultCore
@testable import BiometricsVaultFileStore
import Crypto
import Foundation
import FuzzSupport
import Glibc

/// The fixed store secrets of the harness (static members, so any isolation domain may read them).
enum Fixture {
    static var itemKey: SymmetricKey { SymmetricKey(data: [UInt8](repeating: 0x42, count: 32)) }
    static let digest = [UInt8](repeating: 0x17, count: 32)
    static var nonce: AES.GCM.Nonce { try! AES.GCM.Nonce(data: [UInt8](repeating: 0x09, count: 12)) }
    static let keyFileDirectory: String = {
        var template = Array("/tmp/bv-fuzz-keyfile-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
        // libFuzzer ends with exit(), so this runs after every run: no key files are left in /tmp.
        atexit { removeKeyFileDirectory() }
        return String(cString: made)
    }()
}

/// Removes the harness's key-file directory and the files in it (flat: the harness writes no subdirectories).
func removeKeyFileDirectory() {
    let path = Fixture.keyFileDirectory
    guard let directory = opendir(path) else { return }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { unlink(path + "/" + name) }
    }
    closedir(directory)
    rmdir(path)
}

func checkItemFile(_ file: [UInt8]) {
    do {
        _ = try ItemFile.open(file, digest: Fixture.digest, using: Fixture.itemKey)
        fuzzRequire(false, "an item file forged without the store key was accepted")
    } catch {
        fuzzRequire(error.code == .corruptedItem, "rejection is corruptedItem, got \(error.code)")
    }
}

func checkItemPlaintext(protectionCode: UInt8, plaintext: [UInt8]) {
    let header = ItemFile.magic + [ItemFile.formatVersion, protectionCode]
    let sealed = try! AES.GCM.seal(plaintext, using: Fixture.itemKey, nonce: Fixture.nonce, authenticating: header + Fixture.digest)
    let file = header + Array(sealed.nonce) + Array(sealed.ciphertext) + Array(sealed.tag)
    let opened: ItemFile.Opened
    do {
        opened = try ItemFile.open(file, digest: Fixture.digest, using: Fixture.itemKey)
    } catch {
        fuzzRequire(error.code == .corruptedItem, "rejection is corruptedItem, got \(error.code)")
        return
    }
    fuzzRequire(opened.item.payload != nil, "an opened item has its payload")
    fuzzRequire(opened.item.header.protection.byteCode == protectionCode, "header protection kept")
    guard let resealed = try? ItemFile.seal(opened.item, key: opened.key, digest: Fixture.digest, using: Fixture.itemKey) else {
        // seal refuses only what cannot be written (a key longer than u16 cannot come out of open).
        fuzzRequire(false, "an opened item cannot be sealed again")
        return
    }
    let reopened = try? ItemFile.open(resealed, digest: Fixture.digest, using: Fixture.itemKey)
    fuzzRequire(reopened?.key == opened.key, "key survives a seal/open round trip")
    fuzzRequire(reopened?.item == opened.item, "item survives a seal/open round trip")
}

func checkKeyFile(_ bytes: [UInt8]) {
    // scrypt runs only for a well-formed passphrase file with reasonable parameters; keep those inputs to
    // the cheapest cost so the run spends its time on parsing, not on key derivation.
    var sources: [EncryptedFileStore.KeySource] = [.keyFile, .passphrase(SecretBytes(utf8: "fuzz passphrase"))]
    if bytes.count > 8, bytes[5] == KeyFile.kindScrypt,
        KeyFile.ScryptCost(log2N: bytes[6], blockSize: bytes[7], parallelism: bytes[8]).isReasonable,
        bytes[6] != 10 || bytes[7] != 1 || bytes[8] != 1
    {
        sources = [.keyFile]
    }
    let path = Fixture.keyFileDirectory + "/" + KeyFile.fileName
    // Plain open/write/close: FileManager's atomic write would fsync every input.
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0, bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
        fatalError("cannot write \(path)")
    }
    close(descriptor)
    defer { unlink(path) }
    for source in sources {
        do {
            _ = try KeyFile.load(root: Fixture.keyFileDirectory, source: source)
        } catch let error as VaultError {
            let expected: Set<VaultError.Code> = [.corruptedItem, .authenticationFailed, .storeLocked]
            fuzzRequire(expected.contains(error.code), "key file rejection code, got \(error.code)")
        } catch {
            fuzzRequire(false, "key file load threw a non-VaultError \(type(of: error))")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFileStoreFormat(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    switch mode % 3 {
    case 0:
        checkItemFile(rest)
    case 1:
        guard let protectionCode = rest.first else { return 0 }
        checkItemPlaintext(protectionCode: protectionCode % 6, plaintext: Array(rest.dropFirst()))
    default:
        checkKeyFile(rest)
    }
    return 0
}

runLibFuzzer(fuzzFileStoreFormat)
#endif
