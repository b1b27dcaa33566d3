/// One store or authenticator the platform offers, and whether it can be used here.
package struct PlatformComponent: Sendable, Hashable, Codable {
    /// What the component does.
    package enum Role: String, Sendable, Hashable, Codable, CaseIterable {
        /// Keeps the bytes.
        case store
        /// Biometric authentication.
        case authenticator
        /// Owner authentication (login password): `.userPresence` / `.devicePasscode` items and lockout reset.
        case ownerAuthentication
    }

    package var role: Role
    /// The name used by `--store` / `--authenticator` (`"secret-service"`, `"file"`, `"fprintd"`, ...).
    package var name: String
    /// Whether it can be used now.
    package var isUsable: Bool
    /// Why it cannot be used (the exact reason), or a short note about where it is when it can.
    package var detail: String
    /// The error code behind an unusable component (`storeUnavailable`, `biometryNotEnrolled`, ...).
    package var errorCode: String?
    /// Whether `auto` picks it.
    package var isSelected: Bool

    package init(role: Role, name: String, isUsable: Bool, detail: String, errorCode: String? = nil, isSelected: Bool = false) {
        self.role = role
        self.name = name
        self.isUsable = isUsable
        self.detail = detail
        self.errorCode = errorCode
        self.isSelected = isSelected
    }

    /// A usable component.
    static func usable(_ role: Role, _ name: String, _ detail: String) -> PlatformComponent {
        PlatformComponent(role: role, name: name, isUsable: true, detail: detail)
    }

    /// An unusable component and the error that says why.
    static func unusable(_ role: Role, _ name: String, _ error: VaultError) -> PlatformComponent {
        PlatformComponent(
            role: role, name: name, isUsable: false, detail: error.underlying?.description ?? error.code.name,
            errorCode: error.code.name)
    }
}

/// Every store and authenticator of this platform, usable or not and why, and which ones `auto` picks.
package struct PlatformDiagnosis: Sendable, Hashable, Codable {
    /// In the order `auto` considers them, per role.
    package var components: [PlatformComponent]

    package init(components: [PlatformComponent]) {
        self.components = components
    }

    /// The components of one role.
    package func components(_ role: PlatformComponent.Role) -> [PlatformComponent] {
        components.filter { $0.role == role }
    }

    /// The component `auto` picks for `role` (`nil` when none of that role is usable).
    package func selected(_ role: PlatformComponent.Role) -> PlatformComponent? {
        components.first { $0.role == role && $0.isSelected }
    }
}
