#if os(Linux)
/// One D-Bus interface as its introspection describes it: what the package serves (the vault service,
/// the Secret Service provider) is described once in Swift, and the XML the bus checks calls against is
/// made from that description here.
package struct DBusInterfaceDescription: Sendable {
    /// One argument of a method or a signal: its name in the introspection and its D-Bus type.
    package struct Argument: Sendable, Equatable {
        package let name: String
        package let type: String

        package init(_ name: String, _ type: String) {
            self.name = name
            self.type = type
        }
    }

    package struct Method: Sendable {
        package let name: String
        package let inputs: [Argument]
        package let outputs: [Argument]

        package init(_ name: String, inputs: [Argument], outputs: [Argument]) {
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
        }
    }

    package struct Property: Sendable {
        package let name: String
        package let type: String
        package let isWritable: Bool

        package init(_ name: String, type: String, isWritable: Bool) {
            self.name = name
            self.type = type
            self.isWritable = isWritable
        }
    }

    package struct Signal: Sendable {
        package let name: String
        package let arguments: [Argument]

        package init(_ name: String, arguments: [Argument]) {
            self.name = name
            self.arguments = arguments
        }
    }

    package let name: String
    package let methods: [Method]
    package let properties: [Property]
    package let signals: [Signal]

    package init(_ name: String, methods: [Method], properties: [Property] = [], signals: [Signal] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// The introspection of one object that has `interfaces`.
    package static func introspectionXML(_ interfaces: [DBusInterfaceDescription]) -> String {
        "<node>\n" + interfaces.map(\.xml).joined() + "</node>\n"
    }

    private var xml: String {
        func arguments(_ list: [Argument], _ direction: String?) -> String {
            list.map { argument in
                let direction = direction.map { " direction=\"\($0)\"" } ?? ""
                return "      <arg name=\"\(argument.name)\" type=\"\(argument.type)\"\(direction)/>\n"
            }.joined()
        }
        let methods = methods.map {
            "    <method name=\"\($0.name)\">\n" + arguments($0.inputs, "in") + arguments($0.outputs, "out") + "    </method>\n"
        }
        let properties = properties.map {
            "    <property name=\"\($0.name)\" type=\"\($0.type)\" access=\"\($0.isWritable ? "readwrite" : "read")\"/>\n"
        }
        let signals = signals.map { "    <signal name=\"\($0.name)\">\n" + arguments($0.arguments, nil) + "    </signal>\n" }
        return "  <interface name=\"\(name)\">\n" + methods.joined() + properties.joined() + signals.joined() + "  </interface>\n"
    }
}

extension [DBusInterfaceDescription.Argument] {
    /// Their types as one tuple (`(sv)`; `()` for none): the type of a call's body, a reply or a signal.
    package var tupleType: String { "(" + map(\.type).joined() + ")" }
}
#endif
