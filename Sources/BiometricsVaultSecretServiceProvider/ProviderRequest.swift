#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultSecretService

/// A secret as a call carries it (``SecretServiceAPI/secretType``): the session it travels in, the
/// session's parameters (an IV), the value (encrypted, or plain in a `plain` session; zeroed when it
/// goes) and its content type.
struct TransferredSecret {
    let session: String
    let parameters: [UInt8]
    let value: SecretBytes
    let contentType: String

    init(_ value: DBusValue) {
        session = value[0].string ?? ""
        parameters = value[1].bytes ?? []
        self.value = value[2].secretBytes ?? SecretBytes([])
        contentType = value[3].string ?? ""
    }
}

/// A call to the provider, decoded from the bus message once by its method of ``SecretServiceAPI``: the
/// provider acts on these, never on a message's arguments by position.
enum ProviderRequest {
    case openSession(algorithm: String, input: DBusValue)
    case createCollection(properties: [(key: String, value: DBusValue)], alias: String)
    case searchItems(attributes: [String: String])
    case unlock(objects: [String])
    case lock(objects: [String])
    case getSecrets(items: [String], session: String)
    case readAlias(name: String)
    case setAlias(name: String, collection: String)
    case deleteCollection
    case searchCollection(attributes: [String: String])
    case createItem(properties: [(key: String, value: DBusValue)], secret: TransferredSecret, replace: Bool)
    case deleteItem
    case getSecret(session: String)
    case setSecret(TransferredSecret)
    case closeSession
    case prompt(windowID: String)
    case dismiss

    /// The request that a call of `member` of `interface` with `parameters` (the message's body, one
    /// tuple) makes.
    ///
    /// - Throws: `NotSupported` for a method the API does not have, `InvalidArgs` for arguments that are
    ///   not of its method's types (the bus checks them against the introspection first).
    init(interface: String, member: String, parameters: DBusValue) throws(ProviderError) {
        guard let method = SecretServiceAPI.Method(interface: interface, member: member) else {
            throw ProviderError(ProviderInterface.Error.notSupported, "no method \(member) of \(interface)")
        }
        guard parameters.typeString == method.inputType else {
            throw ProviderError(ProviderInterface.Error.invalidArgs, "\(member) takes \(method.inputType), not \(parameters.typeString)")
        }
        // The types are checked: every accessor below answers.
        func string(_ index: Int) -> String { parameters[index].string ?? "" }
        func strings(_ index: Int) -> [String] { parameters[index].strings ?? [] }
        func attributes(_ index: Int) -> [String: String] {
            Dictionary(parameters[index].stringPairs ?? [], uniquingKeysWith: { _, last in last })
        }
        switch method {
        case .openSession: self = .openSession(algorithm: string(0), input: parameters[1].unboxed)
        case .createCollection: self = .createCollection(properties: parameters[0].properties ?? [], alias: string(1))
        case .searchItems: self = .searchItems(attributes: attributes(0))
        case .unlock: self = .unlock(objects: strings(0))
        case .lock: self = .lock(objects: strings(0))
        case .getSecrets: self = .getSecrets(items: strings(0), session: string(1))
        case .readAlias: self = .readAlias(name: string(0))
        case .setAlias: self = .setAlias(name: string(0), collection: string(1))
        case .deleteCollection: self = .deleteCollection
        case .searchCollection: self = .searchCollection(attributes: attributes(0))
        case .createItem:
            self = .createItem(
                properties: parameters[0].properties ?? [], secret: TransferredSecret(parameters[1]), replace: parameters[2].bool ?? false)
        case .deleteItem: self = .deleteItem
        case .getSecret: self = .getSecret(session: string(0))
        case .setSecret: self = .setSecret(TransferredSecret(parameters[0]))
        case .closeSession: self = .closeSession
        case .prompt: self = .prompt(windowID: string(0))
        case .dismiss: self = .dismiss
        }
    }
}
#endif
