#if canImport(Security) || APPLE_SDK_STUBS
// The enrollment binding of `.biometryCurrentSet` items: which LocalAuthentication value it was read from,
// and how a binding stored from one value is compared once the OS offers another. Pure; platform-neutral.
import BiometricsVaultCore
import Foundation

/// Where LocalAuthentication reports the enrolled biometric set.
package enum EnrollmentBindingSource: String, Hashable, Sendable, CaseIterable {
    /// `LAContext.domainState.biometry.stateHash` (iOS 18, macOS 15, visionOS 2 and later).
    case biometryStateHash = "bsh"
    /// `LAContext.evaluatedPolicyDomainState`: the only source before those versions, deprecated since.
    case policyDomainState = "pds"
}

/// The enrolled set as the OS reports it now, from each source it offers (`nil`: not offered or empty).
package struct EnrollmentReadings: Hashable, Sendable {
    package var biometryStateHash: Data?
    package var policyDomainState: Data?

    package init(biometryStateHash: Data? = nil, policyDomainState: Data? = nil) {
        self.biometryStateHash = biometryStateHash.flatMap { $0.isEmpty ? nil : $0 }
        self.policyDomainState = policyDomainState.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Nothing readable (nothing enrolled, no LocalAuthentication, or the probe failed).
    package static let none = EnrollmentReadings()

    package func reading(from source: EnrollmentBindingSource) -> Data? {
        switch source {
        case .biometryStateHash: biometryStateHash
        case .policyDomainState: policyDomainState
        }
    }

    /// The binding new items get: from the newest source the OS offers.
    package var current: EnrollmentFingerprint? {
        if let biometryStateHash { return EnrollmentBinding.fingerprint(biometryStateHash, from: .biometryStateHash) }
        if let policyDomainState { return EnrollmentBinding.fingerprint(policyDomainState, from: .policyDomainState) }
        return nil
    }
}

/// An enrollment binding is stored as `<source>-<digest>` (e.g. `bsh-3fa2…`): the digest is the lowercase
/// hex of the state when it fits, else its FNV-1a hash. A binding stored before the source was recorded
/// is the bare digest.
package enum EnrollmentBinding {
    /// The binding of `state` read from `source`.
    package static func fingerprint(_ state: Data, from source: EnrollmentBindingSource) -> EnrollmentFingerprint {
        // Always valid: the source tag and a hex digest are printable ASCII without `;`, at most 128 bytes.
        EnrollmentFingerprint(source.rawValue + "-" + digest(of: state))!
    }

    /// The digest of a state in a tagged binding.
    package static func digest(of state: Data) -> String {
        // 61 bytes give 122 hex digits; with the tag, 126 of the 128 a fingerprint may have.
        digest(of: state, hexUpTo: 61)
    }

    /// The digest of a state in a bare binding, stored before the source was recorded (hex up to 64 bytes).
    package static func bareDigest(of state: Data) -> String {
        digest(of: state, hexUpTo: 64)
    }

    private static func digest(of state: Data, hexUpTo limit: Int) -> String {
        state.count <= limit ? state.map(hexByte).joined() : EnrollmentFingerprint(hashing: state).value
    }

    /// The source and digest of a stored binding; source `nil` for a bare (older) one.
    package static func parse(_ binding: EnrollmentFingerprint) -> (source: EnrollmentBindingSource?, digest: String) {
        for source in EnrollmentBindingSource.allCases where binding.value.hasPrefix(source.rawValue + "-") {
            return (source, String(binding.value.dropFirst(source.rawValue.count + 1)))
        }
        return (nil, binding.value)
    }

    /// The binding a stored item is compared with by the vault (which compares bindings for equality):
    /// - stored from the source the OS reports now: the stored binding itself;
    /// - stored from another source (an OS upgrade moved from `evaluatedPolicyDomainState` to
    ///   `domainState`), or bare: when the old source still reads the stored digest, the set did not change
    ///   and the current binding is returned (the item is re-bound to it on its next authenticated access).
    ///   When the old source cannot be read any more, the two cannot be compared and the current binding is
    ///   returned too: the item's `.biometryCurrentSet` access control, which the OS enforces, still refuses
    ///   it after a real change. Otherwise the stored binding: the set changed.
    package static func comparable(stored: EnrollmentFingerprint, now: EnrollmentReadings) -> EnrollmentFingerprint {
        guard let current = now.current, stored != current else { return stored }
        let (source, storedDigest) = parse(stored)
        if let source {
            guard source != parse(current).source else { return stored }
            guard let old = now.reading(from: source) else { return current }
            return digest(of: old) == storedDigest ? current : stored
        }
        // A bare binding came from the source its OS offered: `domainState` where it existed (so only
        // where it exists now), else `evaluatedPolicyDomainState`.
        let readable = EnrollmentBindingSource.allCases.compactMap(now.reading(from:))
        if readable.contains(where: { bareDigest(of: $0) == storedDigest }) { return current }
        return now.policyDomainState == nil ? current : stored
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
#endif
