#if os(Linux)
import BiometricsVaultDBus

/// The Secret Service API (spec 0.2) as the package speaks it, each method, property and signal described
/// once: the client's calls (``SecretServiceClient``) name their method and expect its reply type from
/// here, and the provider's introspection (``introspectionXML``), which the bus checks calls against, and
/// its decoded requests are made from it.
package enum SecretServiceAPI {
    /// The interfaces, by the kind of object that has each.
    package enum Interface: String, CaseIterable, Sendable {
        case service = "org.freedesktop.Secret.Service"
        case collection = "org.freedesktop.Secret.Collection"
        case item = "org.freedesktop.Secret.Item"
        case session = "org.freedesktop.Secret.Session"
        case prompt = "org.freedesktop.Secret.Prompt"

        package var methods: [Method] { Method.allCases.filter { $0.interface == self } }
        package var properties: [Property] { Property.allCases.filter { $0.interface == self } }
        package var signals: [Signal] { Signal.allCases.filter { $0.interface == self } }
    }

    package typealias Argument = DBusInterfaceDescription.Argument

    /// The type of a secret on the bus: session, parameters, value, content type.
    package static let secretType = "(oayays)"

    package enum Method: CaseIterable, Sendable {
        case openSession, createCollection, searchItems, unlock, lock, getSecrets, readAlias, setAlias
        case deleteCollection, searchCollection, createItem
        case deleteItem, getSecret, setSecret
        case closeSession
        case prompt, dismiss

        package var interface: Interface {
            switch self {
            case .openSession, .createCollection, .searchItems, .unlock, .lock, .getSecrets, .readAlias, .setAlias: .service
            case .deleteCollection, .searchCollection, .createItem: .collection
            case .deleteItem, .getSecret, .setSecret: .item
            case .closeSession: .session
            case .prompt, .dismiss: .prompt
            }
        }

        /// Its name on the bus (several interfaces have a `Delete` or a `SearchItems`).
        package var member: String {
            switch self {
            case .openSession: "OpenSession"
            case .createCollection: "CreateCollection"
            case .searchItems, .searchCollection: "SearchItems"
            case .unlock: "Unlock"
            case .lock: "Lock"
            case .getSecrets: "GetSecrets"
            case .readAlias: "ReadAlias"
            case .setAlias: "SetAlias"
            case .deleteCollection, .deleteItem: "Delete"
            case .createItem: "CreateItem"
            case .getSecret: "GetSecret"
            case .setSecret: "SetSecret"
            case .closeSession: "Close"
            case .prompt: "Prompt"
            case .dismiss: "Dismiss"
            }
        }

        package var inputs: [Argument] {
            switch self {
            case .openSession: [.init("algorithm", "s"), .init("input", "v")]
            case .createCollection: [.init("properties", "a{sv}"), .init("alias", "s")]
            case .searchItems, .searchCollection: [.init("attributes", "a{ss}")]
            case .unlock, .lock: [.init("objects", "ao")]
            case .getSecrets: [.init("items", "ao"), .init("session", "o")]
            case .readAlias: [.init("name", "s")]
            case .setAlias: [.init("name", "s"), .init("collection", "o")]
            case .createItem: [.init("properties", "a{sv}"), .init("secret", secretType), .init("replace", "b")]
            case .getSecret: [.init("session", "o")]
            case .setSecret: [.init("secret", secretType)]
            case .prompt: [.init("window-id", "s")]
            case .deleteCollection, .deleteItem, .closeSession, .dismiss: []
            }
        }

        package var outputs: [Argument] {
            switch self {
            case .openSession: [.init("output", "v"), .init("result", "o")]
            case .createCollection: [.init("collection", "o"), .init("prompt", "o")]
            case .searchItems: [.init("unlocked", "ao"), .init("locked", "ao")]
            case .unlock: [.init("unlocked", "ao"), .init("prompt", "o")]
            case .lock: [.init("locked", "ao"), .init("Prompt", "o")]
            case .getSecrets: [.init("secrets", "a{o\(secretType)}")]
            case .readAlias: [.init("collection", "o")]
            case .deleteCollection: [.init("prompt", "o")]
            case .searchCollection: [.init("results", "ao")]
            case .createItem: [.init("item", "o"), .init("prompt", "o")]
            case .deleteItem: [.init("Prompt", "o")]
            case .getSecret: [.init("secret", secretType)]
            case .setAlias, .setSecret, .closeSession, .prompt, .dismiss: []
            }
        }

        /// The type of the call's arguments as one tuple (`(sv)`).
        package var inputType: String { inputs.tupleType }
        /// The type of the reply as one tuple (`(aoao)`; `()` for none).
        package var replyType: String { outputs.tupleType }

        /// The method `member` of `interface`, if the API has it.
        package init?(interface: String, member: String) {
            guard let found = Self.allCases.first(where: { $0.interface.rawValue == interface && $0.member == member }) else { return nil }
            self = found
        }
    }

    package enum Property: CaseIterable, Sendable {
        case collections
        case collectionItems, collectionLabel, collectionLocked, collectionCreated, collectionModified
        case itemLocked, itemAttributes, itemLabel, itemType, itemCreated, itemModified

        package var interface: Interface {
            switch self {
            case .collections: .service
            case .collectionItems, .collectionLabel, .collectionLocked, .collectionCreated, .collectionModified: .collection
            case .itemLocked, .itemAttributes, .itemLabel, .itemType, .itemCreated, .itemModified: .item
            }
        }

        package var name: String {
            switch self {
            case .collections: "Collections"
            case .collectionItems: "Items"
            case .collectionLabel, .itemLabel: "Label"
            case .collectionLocked, .itemLocked: "Locked"
            case .collectionCreated, .itemCreated: "Created"
            case .collectionModified, .itemModified: "Modified"
            case .itemAttributes: "Attributes"
            case .itemType: "Type"
            }
        }

        package var type: String {
            switch self {
            case .collections, .collectionItems: "ao"
            case .collectionLabel, .itemLabel, .itemType: "s"
            case .collectionLocked, .itemLocked: "b"
            case .collectionCreated, .collectionModified, .itemCreated, .itemModified: "t"
            case .itemAttributes: "a{ss}"
            }
        }

        /// Its name as `CreateCollection` and `CreateItem` take it in their properties
        /// (`org.freedesktop.Secret.Item.Label`).
        package var qualifiedName: String { interface.rawValue + "." + name }

        package var isWritable: Bool {
            switch self {
            case .collectionLabel, .itemAttributes, .itemLabel, .itemType: true
            default: false
            }
        }

        /// The property `name` of `interface`, if the API has it.
        package init?(interface: String, name: String) {
            guard let found = Self.allCases.first(where: { $0.interface.rawValue == interface && $0.name == name }) else { return nil }
            self = found
        }
    }

    package enum Signal: CaseIterable, Sendable {
        case collectionCreated, collectionDeleted, collectionChanged
        case itemCreated, itemDeleted, itemChanged
        case completed

        package var interface: Interface {
            switch self {
            case .collectionCreated, .collectionDeleted, .collectionChanged: .service
            case .itemCreated, .itemDeleted, .itemChanged: .collection
            case .completed: .prompt
            }
        }

        package var member: String {
            switch self {
            case .collectionCreated: "CollectionCreated"
            case .collectionDeleted: "CollectionDeleted"
            case .collectionChanged: "CollectionChanged"
            case .itemCreated: "ItemCreated"
            case .itemDeleted: "ItemDeleted"
            case .itemChanged: "ItemChanged"
            case .completed: "Completed"
            }
        }

        package var arguments: [Argument] {
            switch self {
            case .collectionCreated, .collectionDeleted, .collectionChanged: [.init("collection", "o")]
            case .itemCreated, .itemDeleted, .itemChanged: [.init("item", "o")]
            case .completed: [.init("dismissed", "b"), .init("result", "v")]
            }
        }
    }

    /// The introspection of every interface, made from ``Method``, ``Property`` and ``Signal``.
    package static let introspectionXML = DBusInterfaceDescription.introspectionXML(Interface.allCases.map { interface in
        DBusInterfaceDescription(
            interface.rawValue,
            methods: interface.methods.map { .init($0.member, inputs: $0.inputs, outputs: $0.outputs) },
            properties: interface.properties.map { .init($0.name, type: $0.type, isWritable: $0.isWritable) },
            signals: interface.signals.map { .init($0.member, arguments: $0.arguments) })
    })
}
#endif
