#if os(Linux)
@testable import BiometricsVaultSecretServiceProvider
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultSecretService
import Foundation
import Testing

/// The Secret Service API described once (``SecretServiceAPI``): the specification's signatures, the
/// provider's introspection and the requests it decodes all come from it.
@Suite struct ProviderRequestTests {
    /// Each method of the specification (0.2) with its arguments in and out, as the specification lists
    /// them.
    static let specification: [(SecretServiceAPI.Method, interface: String, member: String, inputs: String, outputs: String)] = [
        (.openSession, "org.freedesktop.Secret.Service", "OpenSession", "(sv)", "(vo)"),
        (.createCollection, "org.freedesktop.Secret.Service", "CreateCollection", "(a{sv}s)", "(oo)"),
        (.searchItems, "org.freedesktop.Secret.Service", "SearchItems", "(a{ss})", "(aoao)"),
        (.unlock, "org.freedesktop.Secret.Service", "Unlock", "(ao)", "(aoo)"),
        (.lock, "org.freedesktop.Secret.Service", "Lock", "(ao)", "(aoo)"),
        (.getSecrets, "org.freedesktop.Secret.Service", "GetSecrets", "(aoo)", "(a{o(oayays)})"),
        (.readAlias, "org.freedesktop.Secret.Service", "ReadAlias", "(s)", "(o)"),
        (.setAlias, "org.freedesktop.Secret.Service", "SetAlias", "(so)", "()"),
        (.deleteCollection, "org.freedesktop.Secret.Collection", "Delete", "()", "(o)"),
        (.searchCollection, "org.freedesktop.Secret.Collection", "SearchItems", "(a{ss})", "(ao)"),
        (.createItem, "org.freedesktop.Secret.Collection", "CreateItem", "(a{sv}(oayays)b)", "(oo)"),
        (.deleteItem, "org.freedesktop.Secret.Item", "Delete", "()", "(o)"),
        (.getSecret, "org.freedesktop.Secret.Item", "GetSecret", "(o)", "((oayays))"),
        (.setSecret, "org.freedesktop.Secret.Item", "SetSecret", "((oayays))", "()"),
        (.closeSession, "org.freedesktop.Secret.Session", "Close", "()", "()"),
        (.prompt, "org.freedesktop.Secret.Prompt", "Prompt", "(s)", "()"),
        (.dismiss, "org.freedesktop.Secret.Prompt", "Dismiss", "()", "()"),
    ]

    static var secret: DBusArgument { .tuple([.objectPath("/org/freedesktop/secrets/session/1"), .bytes([1, 2]), .bytes([3, 4]), .string("text/plain")]) }

    /// A body of each method's input type.
    static func body(_ method: SecretServiceAPI.Method) -> DBusArgument {
        switch method {
        case .openSession: .tuple([.string("plain"), .variant(.string(""))])
        case .createCollection: .tuple([.vardict([("org.freedesktop.Secret.Collection.Label", .string("Work"))]), .string("")])
        case .searchItems, .searchCollection: .tuple([.stringDict([("service", "github")])])
        case .unlock, .lock: .tuple([.objectPaths(["/org/freedesktop/secrets/collection/login"])])
        case .getSecrets: .tuple([.objectPaths(["/org/freedesktop/secrets/collection/login/1"]), .objectPath("/org/freedesktop/secrets/session/1")])
        case .readAlias: .tuple([.string("default")])
        case .setAlias: .tuple([.string("default"), .objectPath("/org/freedesktop/secrets/collection/login")])
        case .createItem: .tuple([.vardict([("org.freedesktop.Secret.Item.Label", .string("GitHub"))]), secret, .bool(true)])
        case .getSecret: .tuple([.objectPath("/org/freedesktop/secrets/session/1")])
        case .setSecret: .tuple([secret])
        case .prompt: .tuple([.string("")])
        case .deleteCollection, .deleteItem, .closeSession, .dismiss: .tuple([])
        }
    }

    @Test func everyMethodIsInTheSpecificationTable() {
        #expect(Self.specification.map(\.0) == SecretServiceAPI.Method.allCases)
    }

    /// Each method's interface, name and types are the specification's.
    @Test(arguments: specification.indices)
    func aMethodIsDescribedAsTheSpecificationSays(index: Int) {
        let (method, interface, member, inputs, outputs) = Self.specification[index]
        #expect(method.interface.rawValue == interface)
        #expect(method.member == member)
        #expect(method.inputType == inputs)
        #expect(method.replyType == outputs)
        #expect(SecretServiceAPI.Method(interface: interface, member: member) == method)
    }

    /// A body of the method's own type decodes to a request of that method, its values kept.
    @Test(arguments: SecretServiceAPI.Method.allCases)
    func aBodyOfItsTypeDecodes(method: SecretServiceAPI.Method) throws {
        let body = DBusValue(Self.body(method))
        #expect(body.typeString == method.inputType)
        let request = try ProviderRequest(interface: method.interface.rawValue, member: method.member, parameters: body)
        switch (method, request) {
        case (.openSession, .openSession(let algorithm, let input)): #expect(algorithm == "plain" && input.string == "")
        case (.createCollection, .createCollection(let properties, let alias)):
            #expect(properties.map(\.key) == ["org.freedesktop.Secret.Collection.Label"] && alias == "")
        case (.searchItems, .searchItems(let attributes)), (.searchCollection, .searchCollection(let attributes)):
            #expect(attributes == ["service": "github"])
        case (.unlock, .unlock(let objects)), (.lock, .lock(let objects)): #expect(objects == ["/org/freedesktop/secrets/collection/login"])
        case (.getSecrets, .getSecrets(let items, let session)):
            #expect(items == ["/org/freedesktop/secrets/collection/login/1"] && session == "/org/freedesktop/secrets/session/1")
        case (.readAlias, .readAlias(let name)): #expect(name == "default")
        case (.setAlias, .setAlias(let name, let collection)): #expect(name == "default" && collection == "/org/freedesktop/secrets/collection/login")
        case (.createItem, .createItem(let properties, let secret, let replace)):
            #expect(properties.map(\.key) == ["org.freedesktop.Secret.Item.Label"] && replace)
            #expect(secret.session == "/org/freedesktop/secrets/session/1" && secret.parameters == [1, 2])
            #expect(secret.value == SecretBytes([3, 4]) && secret.contentType == "text/plain")
        case (.getSecret, .getSecret(let session)): #expect(session == "/org/freedesktop/secrets/session/1")
        case (.setSecret, .setSecret(let secret)): #expect(secret.value == SecretBytes([3, 4]))
        case (.prompt, .prompt(let windowID)): #expect(windowID == "")
        case (.deleteCollection, .deleteCollection), (.deleteItem, .deleteItem), (.closeSession, .closeSession), (.dismiss, .dismiss): break
        default: Issue.record("\(method) decoded as \(request)")
        }
    }

    /// A body of any other type is `InvalidArgs` naming the method and both types; a method the API does
    /// not have, or has on another interface, is `NotSupported`.
    @Test(arguments: SecretServiceAPI.Method.allCases)
    func aBodyOfAnotherTypeIsInvalidArgs(method: SecretServiceAPI.Method) {
        let others = SecretServiceAPI.Method.allCases.map { DBusValue(Self.body($0)) }.filter { $0.typeString != method.inputType }
        #expect(!others.isEmpty)
        for body in others {
            do {
                let request = try ProviderRequest(interface: method.interface.rawValue, member: method.member, parameters: body)
                Issue.record("\(method.member) with \(body.typeString) was decoded as \(request)")
            } catch {
                #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs")
                #expect(error.message == "\(method.member) takes \(method.inputType), not \(body.typeString)")
            }
        }
    }

    @Test(arguments: [
        ("org.freedesktop.Secret.Service", "CreateItem"), ("org.freedesktop.Secret.Item", "SetAlias"),
        ("org.freedesktop.Secret.Session", "Delete"), ("org.example.Other", "Close"),
    ])
    func aMethodNotOfTheInterfaceIsNotSupported(interface: String, member: String) {
        do {
            _ = try ProviderRequest(interface: interface, member: member, parameters: DBusValue(.tuple([])))
            Issue.record("\(interface).\(member) was decoded")
        } catch {
            #expect(error.name == "org.freedesktop.DBus.Error.NotSupported")
        }
    }

    /// The introspection the provider serves declares every method, property and signal of each
    /// interface, from the description, and GDBus reads it.
    @Test func theIntrospectionIsMadeFromTheDescription() throws {
        let xml = SecretServiceAPI.introspectionXML
        let interfaces = xml.components(separatedBy: "<interface name=\"").dropFirst()
        #expect(interfaces.map { String($0.prefix { $0 != "\"" }) } == SecretServiceAPI.Interface.allCases.map(\.rawValue))
        for (interface, text) in zip(SecretServiceAPI.Interface.allCases, interfaces) {
            for method in interface.methods {
                let arguments = method.inputs.map { #"<arg name="\#($0.name)" type="\#($0.type)" direction="in"/>"# }
                    + method.outputs.map { #"<arg name="\#($0.name)" type="\#($0.type)" direction="out"/>"# }
                let body = text.components(separatedBy: #"<method name="\#(method.member)">"#).last?.components(separatedBy: "</method>").first ?? ""
                #expect(body.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } == arguments)
            }
            for property in interface.properties {
                #expect(text.contains(#"<property name="\#(property.name)" type="\#(property.type)" access="\#(property.isWritable ? "readwrite" : "read")"/>"#))
            }
            for signal in interface.signals { #expect(text.contains(#"<signal name="\#(signal.member)">"#)) }
        }
        #expect(SecretServiceAPI.Property.itemLabel.qualifiedName == "org.freedesktop.Secret.Item.Label")
    }
}
#endif
