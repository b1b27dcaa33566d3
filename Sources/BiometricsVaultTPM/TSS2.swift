#if os(Linux)
import BiometricsVaultCore
import CTSS2
import Glibc

/// The one file that talks to the TPM (tpm2-tss ESAPI through the TCTI loader) and maps its return codes
/// to `VaultError`.
///
/// Every operation opens its own ESAPI context and closes it at the end: a context is not thread-safe,
/// and a TPM holds only a few transient objects and sessions, so each one is flushed on every path (a
/// direct socket or `/dev/tpm0` has no resource manager to do it for us).
enum TSS2 {
    /// Seals `secret` under the owner hierarchy's storage primary key. With a `pin`, the sealed object's
    /// authValue is the PIN (dictionary-attack protected); without, its authValue is empty (noDA).
    /// Returns the marshalled public and private parts (nothing is kept in the TPM).
    static func seal(_ secret: SecretBytes, pin: SecretBytes?, tcti: String) throws(VaultError) -> [UInt8] {
        try requireLibrary()
        guard secret.count <= 128, (pin?.count ?? 0) <= 32 else {
            throw VaultError(.storeUnavailable, underlying: .message("the secret or PIN is too long for the TPM"))
        }
        return try explainingLockout(tcti) { () throws(VaultError) in try withContext(tcti) { context throws(VaultError) in
            try makingRoom(context) { () throws(VaultError) in
            try withPrimaryAndSession(context, encrypt: [.decrypt, .encrypt]) { primary, session throws(VaultError) in
                var sensitive = TPM2B_SENSITIVE_CREATE()
                defer { wipe(&sensitive) }
                if let pin {
                    sensitive.sensitive.userAuth.size = UInt16(pin.count)
                    copy(pin, into: &sensitive.sensitive.userAuth.buffer)
                }
                sensitive.sensitive.data.size = UInt16(secret.count)
                copy(secret, into: &sensitive.sensitive.data.buffer)
                var template = bv_sealed_object_template(pin == nil ? 0 : 1)
                var outsideInfo = TPM2B_DATA()
                var pcrs = TPML_PCR_SELECTION()
                var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
                var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
                var creationData: UnsafeMutablePointer<TPM2B_CREATION_DATA>?
                var creationHash: UnsafeMutablePointer<TPM2B_DIGEST>?
                var ticket: UnsafeMutablePointer<TPMT_TK_CREATION>?
                defer {
                    tss.Esys_Free(outPrivate); tss.Esys_Free(outPublic); tss.Esys_Free(creationData)
                    tss.Esys_Free(creationHash); tss.Esys_Free(ticket)
                }
                try check(
                    tss.Esys_Create(
                        context, primary, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &sensitive, &template,
                        &outsideInfo, &pcrs, &outPrivate, &outPublic, &creationData, &creationHash, &ticket),
                    "create the sealed object")
                guard let outPrivate, let outPublic else { throw malformed("TPM2_Create returned no object") }
                return try marshal(outPublic.pointee, outPrivate.pointee)
            }
            }
        } }
    }

    /// Loads a blob from ``seal(_:pin:tcti:)`` under the re-derived primary key and unseals it.
    static func unseal(_ blob: [UInt8], pin: SecretBytes?, tcti: String) throws(VaultError) -> SecretBytes {
        try requireLibrary()
        var (inPublic, inPrivate) = try unmarshal(blob)
        return try explainingLockout(tcti) { () throws(VaultError) in try withContext(tcti) { context throws(VaultError) in
            try makingRoom(context) { () throws(VaultError) in
            try withPrimaryAndSession(context, encrypt: [.decrypt, .encrypt]) { primary, session throws(VaultError) in
                var object = ESYS_TR(ESYS_TR_NONE)
                try check(
                    tss.Esys_Load(context, primary, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &inPrivate, &inPublic, &object),
                    "load the sealed key")
                defer { flush(context, object) }
                var auth = TPM2B_AUTH()
                defer { wipe(&auth) }
                if let pin {
                    guard pin.count <= 32 else { throw VaultError(.authenticationFailed, underlying: .message("wrong PIN (longer than any TPM PIN)")) }
                    auth.size = UInt16(pin.count)
                    copy(pin, into: &auth.buffer)
                }
                try check(tss.Esys_TR_SetAuth(context, object, &auth), "set the PIN")
                // TPM2_Unseal has no command parameter to encrypt: only its response is.
                try check(
                    tss.Esys_TRSess_SetAttributes(context, session, TPMA_SESSION(TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION), 0xFF),
                    "set the session attributes")
                var outData: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
                defer {
                    if let outData { wipe(&outData.pointee) }
                    tss.Esys_Free(outData)
                }
                try check(tss.Esys_Unseal(context, object, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &outData), "unseal the key")
                guard let outData else { throw malformed("TPM2_Unseal returned no data") }
                let size = Int(outData.pointee.size)
                return withUnsafeBytes(of: outData.pointee.buffer) { SecretBytes($0.prefix(size)) }
            }
            }
        } }
    }

    /// The TPM's identity and dictionary-attack state, read without authorization.
    static func status(tcti: String) throws(VaultError) -> TPMStatus {
        try requireLibrary()
        return try withContext(tcti) { context throws(VaultError) in
            var status = TPMStatus(manufacturer: "", lockoutCounter: 0, maximumTries: 0, lockoutInterval: 0, lockoutRecovery: 0, inLockout: false)
            for (first, count) in [(TPM2_PT_MANUFACTURER_VALUE, UInt32(1)), (TPM2_PT_PERMANENT_VALUE, UInt32(18))] {
                var more = TPMI_YES_NO(0)
                var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
                defer { tss.Esys_Free(data) }
                try check(
                    tss.Esys_GetCapability(
                        context, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                        TPM2_CAP(TPM2_CAP_TPM_PROPERTIES), first, count, &more, &data),
                    "read the TPM properties")
                guard let data else { throw malformed("TPM2_GetCapability returned nothing") }
                for index in 0..<bv_property_count(data) {
                    let property = bv_property(data, index)
                    switch property.property {
                    case TPM2_PT_MANUFACTURER_VALUE:
                        let value = property.value
                        let bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
                        status.manufacturer = String(decoding: bytes.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
                            .trimmingSpaces
                    case TPM2_PT_PERMANENT_VALUE: status.inLockout = property.value & TPMA_PERMANENT_INLOCKOUT_VALUE != 0
                    case TPM2_PT_PERMANENT_VALUE + 14: status.lockoutCounter = property.value
                    case TPM2_PT_PERMANENT_VALUE + 15: status.maximumTries = property.value
                    case TPM2_PT_PERMANENT_VALUE + 16: status.lockoutInterval = property.value
                    case TPM2_PT_PERMANENT_VALUE + 17: status.lockoutRecovery = property.value
                    default: break
                    }
                }
            }
            return status
        }
    }

    // MARK: the library

    /// tpm2-tss, opened on the first TPM operation of the process (`bv_tss2_load` in shim.h).
    private static let library: Result<bv_tss2_api, VaultError> = {
        let api = UnsafeMutablePointer<bv_tss2_api>.allocate(capacity: 1)
        defer { api.deallocate() }
        if let missing = bv_tss2_load(api) {
            return .failure(
                VaultError(
                    .storeUnavailable,
                    underlying: .message(
                        "the TPM needs tpm2-tss, which could not be loaded here (\(String(cString: missing))): on Debian or Ubuntu, apt install libtss2-esys-3.0.2-0 libtss2-tctildr0 libtss2-mu0 libtss2-rc0")))
        }
        return .success(api.pointee)
    }()

    private static func requireLibrary() throws(VaultError) {
        _ = try library.get()
    }

    /// The entry points. Only reached after `requireLibrary()`: seal, unseal and status call it first.
    private static var tss: bv_tss2_api {
        guard case .success(let api) = library else { preconditionFailure("tpm2-tss used before requireLibrary()") }
        return api
    }

    // MARK: context, primary key, session

    private static let TPM2_PT_MANUFACTURER_VALUE: UInt32 = 0x105  // TPM2_PT_FIXED + 5
    private static let TPM2_PT_PERMANENT_VALUE: UInt32 = 0x200  // TPM2_PT_VAR + 0; +14...+17 the DA properties
    private static let TPMA_PERMANENT_INLOCKOUT_VALUE: UInt32 = 0x200

    private static func withContext<Result>(
        _ tcti: String, _ body: (OpaquePointer) throws(VaultError) -> Result
    ) throws(VaultError) -> Result {
        var tctiContext: OpaquePointer?
        let loaded = tss.Tss2_TctiLdr_Initialize(tcti, &tctiContext)
        guard loaded == TSS2_RC_SUCCESS, let tctiContext else { throw unreachable(tcti, loaded) }
        defer {
            var finalized: OpaquePointer? = tctiContext
            tss.Tss2_TctiLdr_Finalize(&finalized)
        }
        var context: OpaquePointer?
        let initialized = tss.Esys_Initialize(&context, tctiContext, nil)
        guard initialized == TSS2_RC_SUCCESS, let context else { throw unreachable(tcti, initialized) }
        defer {
            var finalized: OpaquePointer? = context
            tss.Esys_Finalize(&finalized)
        }
        return try body(context)
    }

    private struct SessionAttributes: OptionSet {
        let rawValue: UInt8
        static let decrypt = SessionAttributes(rawValue: UInt8(TPMA_SESSION_DECRYPT))
        static let encrypt = SessionAttributes(rawValue: UInt8(TPMA_SESSION_ENCRYPT))
    }

    /// Creates the storage primary key (owner hierarchy, empty owner auth) and a salted HMAC session to it
    /// with AES-128-CFB parameter encryption; flushes both when `body` returns or throws.
    private static func withPrimaryAndSession<Result>(
        _ context: OpaquePointer, encrypt: SessionAttributes,
        _ body: (ESYS_TR, ESYS_TR) throws(VaultError) -> Result
    ) throws(VaultError) -> Result {
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = bv_storage_primary_template()
        var outsideInfo = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var primary = ESYS_TR(ESYS_TR_NONE)
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        var creationData: UnsafeMutablePointer<TPM2B_CREATION_DATA>?
        var creationHash: UnsafeMutablePointer<TPM2B_DIGEST>?
        var ticket: UnsafeMutablePointer<TPMT_TK_CREATION>?
        let created = tss.Esys_CreatePrimary(
            context, ESYS_TR(ESYS_TR_RH_OWNER), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            &sensitive, &template, &outsideInfo, &pcrs, &primary, &outPublic, &creationData, &creationHash, &ticket)
        tss.Esys_Free(outPublic); tss.Esys_Free(creationData); tss.Esys_Free(creationHash); tss.Esys_Free(ticket)
        if created & 0xFF_0000 == 0, created & 0x80 != 0, [0x8E, 0xA2].contains(created & 0xBF) {
            // Our empty owner authorization was refused: not a wrong PIN of ours.
            throw VaultError(
                .storeUnavailable,
                underlying: .message("the TPM's owner hierarchy has a password, so its storage key cannot be derived without it; nothing was changed"))
        }
        try check(created, "create the storage primary key")
        defer { flush(context, primary) }

        var session = ESYS_TR(ESYS_TR_NONE)
        var symmetric = bv_session_symmetric()
        try check(
            tss.Esys_StartAuthSession(
                context, primary, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                nil, TPM2_SE(TPM2_SE_HMAC), &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256), &session),
            "start a salted session")
        defer { flush(context, session) }
        try check(
            tss.Esys_TRSess_SetAttributes(
                context, session, TPMA_SESSION(encrypt.rawValue) | TPMA_SESSION(TPMA_SESSION_CONTINUESESSION), 0xFF),
            "set the session attributes")
        return try body(primary, session)
    }

    /// Runs `body`; if the TPM had no room for another transient object or session, flushes the
    /// leftovers and runs it once more.
    ///
    /// Without a resource manager (`/dev/tpm0`, a direct swtpm or simulator socket) what a killed run
    /// loaded stays loaded until someone flushes it, and a TPM holds only about three objects: the store
    /// would never open again. Such leftovers have no owner left (a live program on a TPM without a
    /// resource manager would lose its objects too, and fail cleanly). With `/dev/tpmrm0` the kernel
    /// flushes for us and this never triggers.
    private static func makingRoom<Result>(
        _ context: OpaquePointer, _ body: () throws(VaultError) -> Result
    ) throws(VaultError) -> Result {
        do {
            return try body()
        } catch where error.underlying?.description.hasPrefix(outOfRoomMessage) == true {
            flushLeftovers(context)
            return try body()
        }
    }

    /// Flushes every loaded transient object and session (TPM2_GetCapability(TPM2_CAP_HANDLES)).
    private static func flushLeftovers(_ context: OpaquePointer) {
        let transientFirst: UInt32 = 0x8000_0000  // TPM2_TRANSIENT_FIRST
        let loadedSessionFirst: UInt32 = 0x0200_0000  // TPM2_LOADED_SESSION_FIRST
        for first in [transientFirst, loadedSessionFirst] {
            var more = TPMI_YES_NO(0)
            var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
            defer { tss.Esys_Free(data) }
            let listed = tss.Esys_GetCapability(
                context, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                TPM2_CAP(TPM2_CAP_HANDLES), first, bv_max_cap_handles(), &more, &data)
            guard listed == TSS2_RC_SUCCESS, let data else { continue }
            for index in 0..<bv_handle_count(data) {
                var leftover = ESYS_TR(ESYS_TR_NONE)
                let handle = bv_handle(data, index)
                guard tss.Esys_TR_FromTPMPublic(
                    context, handle, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &leftover)
                    == TSS2_RC_SUCCESS
                else { continue }
                flush(context, leftover)
            }
        }
    }

    private static func flush(_ context: OpaquePointer, _ handle: ESYS_TR) {
        guard handle != ESYS_TR(ESYS_TR_NONE) else { return }
        _ = tss.Esys_FlushContext(context, handle)
    }

    // MARK: blob format: version 1, TPM2B_PUBLIC, TPM2B_PRIVATE (TPM marshalling)

    private static let blobVersion: UInt8 = 1

    private static func marshal(_ publicPart: TPM2B_PUBLIC, _ privatePart: TPM2B_PRIVATE) throws(VaultError) -> [UInt8] {
        var publicPart = publicPart
        var privatePart = privatePart
        var buffer = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PUBLIC>.size + MemoryLayout<TPM2B_PRIVATE>.size)
        var offset = 0
        let written = buffer.withUnsafeMutableBufferPointer { raw -> TSS2_RC in
            let publicWritten = tss.Tss2_MU_TPM2B_PUBLIC_Marshal(&publicPart, raw.baseAddress, raw.count, &offset)
            guard publicWritten == TSS2_RC_SUCCESS else { return publicWritten }
            return tss.Tss2_MU_TPM2B_PRIVATE_Marshal(&privatePart, raw.baseAddress, raw.count, &offset)
        }
        guard written == TSS2_RC_SUCCESS else { throw malformed("could not marshal the sealed object") }
        return [blobVersion] + buffer[0..<offset]
    }

    private static func unmarshal(_ blob: [UInt8]) throws(VaultError) -> (TPM2B_PUBLIC, TPM2B_PRIVATE) {
        guard blob.first == blobVersion else { throw damaged() }
        var publicPart = TPM2B_PUBLIC()
        var privatePart = TPM2B_PRIVATE()
        var offset = 1
        let read = blob.withUnsafeBufferPointer { raw -> TSS2_RC in
            let publicRead = tss.Tss2_MU_TPM2B_PUBLIC_Unmarshal(raw.baseAddress, raw.count, &offset, &publicPart)
            guard publicRead == TSS2_RC_SUCCESS else { return publicRead }
            return tss.Tss2_MU_TPM2B_PRIVATE_Unmarshal(raw.baseAddress, raw.count, &offset, &privatePart)
        }
        guard read == TSS2_RC_SUCCESS, offset == blob.count else { throw damaged() }
        return (publicPart, privatePart)
    }

    // MARK: bytes in and out of TPM2B buffers

    private static func copy<Buffer>(_ secret: SecretBytes, into buffer: inout Buffer) {
        secret.withUnsafeBytes { source in
            withUnsafeMutableBytes(of: &buffer) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(target.count)))
            }
        }
    }

    private static func wipe<Value>(_ value: inout Value) {
        withUnsafeMutableBytes(of: &value) { raw in
            guard let base = raw.baseAddress else { return }
            explicit_bzero(base, raw.count)
        }
    }

    // MARK: errors

    /// Maps a TSS2 return code to a `VaultError`; the TPM's own text (`Tss2_RC_Decode`) is kept.
    private static func check(_ code: TSS2_RC, _ action: String) throws(VaultError) {
        guard code != TSS2_RC_SUCCESS else { return }
        let text = tss.Tss2_RC_Decode(code).map { String(cString: $0) } ?? "TSS2 0x\(String(code, radix: 16))"
        let layer = code & 0xFF_0000
        if layer == 0 || layer == 0x0B_0000 || layer == 0x0C_0000 {  // the TPM itself, or a resource manager for it
            // Format-1 codes carry a handle, session or parameter number in bits 6 and 8-11.
            let base = code & 0x80 != 0 ? code & 0xBF : code & 0xFFFF
            switch base {
            case 0x8E:  // TPM_RC_AUTH_FAIL: the HMAC (PIN) did not match; the DA counter went up
                throw VaultError(.authenticationFailed, underlying: .message("wrong PIN for the TPM-sealed store key (the TPM counts failed tries)"))
            case 0xA2:  // TPM_RC_BAD_AUTH: wrong authValue on an object without DA protection
                throw VaultError(.authenticationFailed, underlying: .message("wrong PIN for the TPM-sealed store key"))
            case 0x921:  // TPM_RC_LOCKOUT
                throw lockedOut()
            case 0x902, 0x903:  // TPM_RC_OBJECT_MEMORY, TPM_RC_SESSION_MEMORY (see `makingRoom`)
                throw VaultError(.storeUnavailable, underlying: .message("\(outOfRoomMessage) to \(action) (\(text))"))
            case 0x9F, 0x8B, 0x84, 0x95, 0x9A:  // INTEGRITY, HANDLE, VALUE, SIZE, INSUFFICIENT on load
                throw VaultError(
                    .storeUnavailable,
                    underlying: .message(
                        "this store's key was sealed by another TPM (or this TPM was cleared since): it cannot be unsealed on this machine; nothing was changed (\(text))"))
            default:
                throw VaultError(.storeUnavailable, underlying: .message("the TPM could not \(action): \(text)"))
            }
        }
        if layer == 0x0A_0000 {  // TCTI: the connection to the TPM broke
            throw VaultError(.storeUnavailable, underlying: .message("lost the connection to the TPM while trying to \(action): \(text)"))
        }
        throw VaultError(.storeUnavailable, underlying: .message("could not \(action) with the TPM: \(text)"))
    }

    private static let outOfRoomMessage = "the TPM has no room for another object or session, even after flushing what other runs left loaded"

    private static func lockedOut() -> VaultError {
        VaultError(.biometryLockout, underlying: .message(lockoutMessage))
    }

    private static let lockoutMessage = "the TPM is in dictionary-attack lockout after too many wrong PINs"

    /// Runs `body`; a lockout it throws gets the TPM's own counter and recovery time (read afterwards,
    /// without authorization) in its message.
    private static func explainingLockout<Result>(_ tcti: String, _ body: () throws(VaultError) -> Result) throws(VaultError) -> Result {
        do {
            return try body()
        } catch where error.code == .biometryLockout {
            guard let status = try? status(tcti: tcti) else { throw error }
            throw VaultError(
                .biometryLockout,
                underlying: .message(
                    "\(lockoutMessage): \(status.lockoutCounter) failures of \(status.maximumTries) allowed; the TPM forgets one failure every \(status.lockoutInterval) s, so try again in at most \(status.lockoutInterval) s (or clear the lockout with the TPM's lockout authorization)"))
        }
    }

    /// No TPM at `tcti`, or no permission to use it: says which, in words.
    private static func unreachable(_ tcti: String, _ code: TSS2_RC) -> VaultError {
        let text = tss.Tss2_RC_Decode(code).map { String(cString: $0) } ?? "TSS2 0x\(String(code, radix: 16))"
        if let device = TPMConfiguration.devicePath(tcti) {
            let descriptor = open(device, O_RDWR | O_CLOEXEC)
            let number = errno
            if descriptor >= 0 {
                close(descriptor)
            } else if number == EACCES || number == EPERM {
                return VaultError(
                    .storeUnavailable,
                    underlying: .message(
                        "no permission to use the TPM at \(device) (it is root:tss 0660 on most distributions): add yourself to the tss group (sudo usermod -aG tss $USER, then log in again)"))
            } else if number == ENOENT || number == ENODEV || number == ENXIO {
                return VaultError(.storeUnavailable, underlying: .message("no TPM here: \(device) does not exist (no TPM 2.0, or it is disabled in the firmware)"))
            } else if number == EBUSY {
                return VaultError(.storeUnavailable, underlying: .message("the TPM at \(device) is busy (another program holds it open)"))
            }
        }
        return VaultError(.storeUnavailable, underlying: .message("cannot reach the TPM at '\(tcti)': \(text)"))
    }

    private static func malformed(_ why: String) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message(why))
    }

    private static func damaged() -> VaultError {
        VaultError(.corruptedItem, underlying: .message("the TPM-sealed store key is damaged"))
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        while text.first == " " { text = text.dropFirst() }
        return String(text)
    }
}
#endif
