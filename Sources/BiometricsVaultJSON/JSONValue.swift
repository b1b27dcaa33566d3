/// A JSON value exactly as it was written: credentials of any shape kept byte for byte (what the
/// `biometrics-vault` CLI stores, and what it builds its `--json` reports from).
///
/// Credentials must come back as they went in, so nothing is converted: a number keeps its literal
/// (digits, sign, exponent), a string keeps its escapes as written, an object keeps its members in the
/// given order. ``jsonText`` is the input without its insignificant whitespace. The parser is strict
/// RFC 8259 (``parse(_:)``); its errors say where, never what, since the input may be a secret.
///
/// Deliberately not JSONSerialization/JSONDecoder: they read numbers as Double or Int64 (losing digits),
/// keep one of two duplicate members silently, and reorder objects.
///
/// Everything here is in the type's own declaration, not in extensions, so a file that sees the type
/// (through an import or a type alias) sees all of it.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(JSONString)
    case array([JSONValue])
    case object([JSONMember])

    /// The most nested arrays and objects a value may have (one level per `[` or `{`). Credentials stored
    /// as JSONEncoder output (which fails at 512 levels) are all within it. The message of
    /// ``JSONSyntaxError/Reason/tooDeep`` repeats the number.
    package static let maximumDepth = 512

    // MARK: building

    package static func string(_ value: String) -> JSONValue { .string(JSONString(value)) }
    package static func integer(_ value: Int64) -> JSONValue { .number(JSONNumber(validLiteral: String(value))) }
    /// An object with its members sorted by name (a Swift dictionary has no order to keep).
    package static func object(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.sorted { $0.key < $1.key }.map { JSONMember(name: JSONString($0.key), value: $0.value) })
    }

    // MARK: printing

    /// Compact JSON text: for a parsed value, the input exactly, without insignificant whitespace.
    package var jsonText: String {
        var text = ""
        append(to: &text)
        return text
    }

    private func append(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let number): text += number.literal
        case .string(let string): text += "\"" + string.literal + "\""
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.append(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                text += "\"" + member.name.literal + "\":"
                member.value.append(to: &text)
            }
            text += "}"
        }
    }

    /// One value as raw text (`show --field`): a string's value (escapes decoded), anything else as its
    /// JSON text.
    package var rawText: String {
        if case .string(let string) = self { return string.value }
        return jsonText
    }

    /// The value as text for a program that reads one value as text (`exec --env`, git's and docker's
    /// credential helpers): as ``rawText`` for a string, a number or a boolean, so a number is the
    /// literal as stored everywhere; `nil` for null, an array or an object.
    package var scalarText: String? {
        switch self {
        case .string, .number, .bool: rawText
        case .null, .array, .object: nil
        }
    }

    /// The member named `name` (compared by its decoded UTF-8 bytes), when this is an object.
    package func member(named name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name.value.utf8.elementsEqual(name.utf8) }?.value
    }

    // MARK: parsing

    /// Parses one JSON text (RFC 8259, UTF-8). Rejects an empty text (only white space), invalid UTF-8,
    /// lone surrogates, raw control characters in strings, leading zeros, duplicate member names, nesting
    /// deeper than ``maximumDepth`` and anything after the value. The error names the byte offset (and,
    /// for a duplicate, the member's name), never the content.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }
}

/// A number literal as written, e.g. `-0`, `1.0E+2`, `123456789012345678901234567890`.
package struct JSONNumber: Sendable, Equatable {
    package let literal: String

    /// Only for literals known to follow the JSON number grammar.
    init(validLiteral: String) { literal = validLiteral }
}

/// A string as written: ``literal`` is the text between the quotes, escapes kept; ``value`` is decoded.
package struct JSONString: Sendable, Equatable {
    package let literal: String
    package let value: String

    /// Only for a literal the parser validated, with its decoded value.
    init(literal: String, value: String) {
        self.literal = literal
        self.value = value
    }

    /// A string for a report: escaped as RFC 8259 requires (quote, backslash, C0 controls), plus
    /// U+2028/2029 for JavaScript readers.
    package init(_ value: String) {
        var literal = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                literal += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: literal.unicodeScalars.append(scalar)
            }
        }
        self.literal = literal
        self.value = value
    }
}

/// One member of an object, in the order given.
package struct JSONMember: Sendable, Equatable {
    package let name: JSONString
    package let value: JSONValue

    package init(name: JSONString, value: JSONValue) {
        self.name = name
        self.value = value
    }
}
