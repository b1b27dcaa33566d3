#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value exactly as it was written: what the CLI stores as credentials, and what it builds its
/// `--json` reports from.
///
/// Credentials must come back as they went in, so nothing is converted: a number keeps its literal
/// (digits, sign, exponent), a string keeps its escapes as written, an object keeps its members in the
/// given order. ``jsonText`` is the input without its insignificant whitespace. The parser is strict
/// RFC 8259 (``parse(_:source:)``); its errors say where, never what, since the input may be a secret.
///
/// Deliberately not JSONSerialization/JSONDecoder: they read numbers as Double or Int64 (losing digits),
/// keep one of two duplicate members silently, and reorder objects.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(JSONString)
    case array([JSONValue])
    case object([JSONMember])

    /// The most nested arrays and objects a value may have (one level per `[` or `{`). Credentials the
    /// previous versions stored (JSONEncoder, which failed at 512 levels) are all within it. The message
    /// of ``JSONSyntaxError/Reason/tooDeep`` repeats the number.
    static let maximumDepth = 512

    // MARK: building reports

    static func string(_ value: String) -> JSONValue { .string(JSONString(value)) }
    static func integer(_ value: Int64) -> JSONValue { .number(JSONNumber(validLiteral: String(value))) }
    /// An object with its members sorted by name (a Swift dictionary has no order to keep).
    static func object(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.sorted { $0.key < $1.key }.map { JSONMember(name: JSONString($0.key), value: $0.value) })
    }

    // MARK: printing

    /// Compact JSON text: for a parsed value, the input exactly, without insignificant whitespace.
    var jsonText: String {
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

    /// What `--field` prints: a string's value (escapes decoded), anything else as its JSON text.
    var rawText: String {
        if case .string(let string) = self { return string.value }
        return jsonText
    }

    /// The member named `name` (compared by its decoded UTF-8 bytes), when this is an object.
    func member(named name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name.value.utf8.elementsEqual(name.utf8) }?.value
    }

    // MARK: parsing

    /// Parses one JSON text (RFC 8259, UTF-8). Rejects invalid UTF-8, lone surrogates, raw control
    /// characters in strings, leading zeros, duplicate member names, nesting deeper than
    /// ``maximumDepth`` and anything after the value. The error names the byte offset (and, for a
    /// duplicate, the member's name), never the content.
    static func parse(_ data: Data, source: String) throws(CLIFailure) -> JSONValue {
        let bytes = [UInt8](data)
        guard !bytes.allSatisfy(JSONParser.isWhitespace) else {
            throw .badInput("no credentials on \(source): expected a JSON value")
        }
        var parser = JSONParser(bytes: bytes)
        do {
            return try parser.parseDocument()
        } catch {
            throw .badInput("\(source) is not valid JSON: \(error.description)")
        }
    }
}

/// A number literal as written, e.g. `-0`, `1.0E+2`, `123456789012345678901234567890`.
struct JSONNumber: Sendable, Equatable {
    let literal: String

    /// Only for literals known to follow the JSON number grammar.
    init(validLiteral: String) { literal = validLiteral }
}

/// A string as written: ``literal`` is the text between the quotes, escapes kept; ``value`` is decoded.
struct JSONString: Sendable, Equatable {
    let literal: String
    let value: String

    /// Only for a literal the parser validated, with its decoded value.
    init(literal: String, value: String) {
        self.literal = literal
        self.value = value
    }

    /// A string for a report: escaped as RFC 8259 requires (quote, backslash, C0 controls), plus
    /// U+2028/2029 for JavaScript readers.
    init(_ value: String) {
        var literal = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                literal += "\\u" + Text.hex(scalar.value, digits: 4)
            default: literal.unicodeScalars.append(scalar)
            }
        }
        self.literal = literal
        self.value = value
    }
}

/// One member of an object, in the order given.
struct JSONMember: Sendable, Equatable {
    let name: JSONString
    let value: JSONValue
}

/// Where and why a JSON text is invalid: fixed words and a byte offset, never the input; only a
/// duplicated member's name is quoted (a name is structure; the issue asks to say which one).
struct JSONSyntaxError: Error {
    enum Reason: String, CaseIterable {
        case trailingData = "unexpected data after the value"
        case unexpectedEnd = "unexpected end of input"
        case unexpectedNonASCII = "unexpected non-ASCII byte"
        case unexpectedCharacter = "unexpected character"
        case expectedCommaOrBracket = "expected ',' or ']'"
        case expectedMemberName = "expected a member name"
        case expectedColon = "expected ':'"
        case expectedCommaOrBrace = "expected ',' or '}'"
        case leadingZero = "leading zero in a number"
        case expectedDigit = "expected a digit"
        case expectedFractionDigit = "expected a digit after '.'"
        case expectedExponentDigit = "expected a digit in the exponent"
        case unterminatedString = "unterminated string"
        case controlCharacterInString = "control character in a string (must be escaped)"
        case loneLowSurrogate = "lone low surrogate in a \\u escape"
        case loneHighSurrogate = "lone high surrogate in a \\u escape"
        case invalidUnicodeEscape = "invalid \\u escape"
        case invalidEscape = "invalid escape in a string"
        case expectedHexDigits = "expected four hex digits after \\u"
        case invalidUTF8 = "invalid UTF-8"
        case tooDeep = "nested deeper than 512 levels (the limit)"
        case duplicateMemberName = "duplicate member name"
    }

    let reason: Reason
    let offset: Int
    var memberName: String? = nil

    /// E.g. `duplicate member name "user" at byte 27`; the name JSON-escaped, at most 64 characters.
    var description: String {
        let name = memberName.map { " \"" + JSONString($0).literal.prefix(64) + "\"" } ?? ""
        return "\(reason.rawValue)\(name) at byte \(offset)"
    }
}

/// The member names of one object so far, for the duplicate check: open addressing over each name's UTF-8
/// bytes, hashed with the standard library's per-process seeded `Hasher` (crafted names cannot make it
/// quadratic) and compared byte for byte.
///
/// Not a `Set<[UInt8]>`: creating that type makes the runtime check `[UInt8]: Hashable` by scanning every
/// protocol conformance in the binary, and `show` paid that after the store's last reply, on its critical
/// path (Docs/Benchmarks.md).
struct MemberNames {
    private var names: [[UInt8]] = []
    /// Indices into `names`; -1 is an empty slot. A power of two, at most half full.
    private var slots = [Int](repeating: -1, count: 8)

    /// Adds `name`; false when the object has it already.
    mutating func insert(_ name: [UInt8]) -> Bool {
        if (names.count + 1) * 2 > slots.count { rehash(capacity: slots.count * 2) }
        var slot = firstSlot(for: name)
        while slots[slot] >= 0 {
            if names[slots[slot]] == name { return false }
            slot = (slot + 1) & (slots.count - 1)
        }
        slots[slot] = names.count
        names.append(name)
        return true
    }

    private mutating func rehash(capacity: Int) {
        slots = [Int](repeating: -1, count: capacity)
        for index in names.indices {
            var slot = firstSlot(for: names[index])
            while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = index
        }
    }

    private func firstSlot(for name: [UInt8]) -> Int {
        var hasher = Hasher()
        name.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize() & (slots.count - 1)
    }
}

/// A recursive-descent RFC 8259 parser over UTF-8 bytes (recursion bounded by the depth limit).
struct JSONParser {
    let bytes: [UInt8]
    var position = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw fail(.trailingData) }
        return value
    }

    private func fail(_ reason: JSONSyntaxError.Reason, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: offset ?? position)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, Self.isWhitespace(byte) { position += 1 }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw fail(.unexpectedEnd) }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail(byte >= 0x80 ? .unexpectedNonASCII : .unexpectedCharacter)
        }
    }

    private mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        for expected in word.utf8 {
            guard current == expected else { throw fail(current == nil ? .unexpectedEnd : .unexpectedCharacter) }
            position += 1
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONValue.maximumDepth {
            throw fail(.tooDeep)
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            case nil: throw fail(.unexpectedEnd)
            default: throw fail(.expectedCommaOrBracket)
            }
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        position += 1  // {
        var members: [JSONMember] = []
        var names = MemberNames()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw fail(current == nil ? .unexpectedEnd : .expectedMemberName)
            }
            let nameOffset = position
            let name = try parseString()
            // Duplicates compare decoded code points, so "a" and "\u0061" are the same name (RFC 8259
            // leaves duplicates undefined; keeping one silently is how credentials got lost).
            guard names.insert(Array(name.value.utf8)) else {
                throw JSONSyntaxError(reason: .duplicateMemberName, offset: nameOffset, memberName: name.value)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail(current == nil ? .unexpectedEnd : .expectedColon) }
            position += 1
            skipWhitespace()
            members.append(JSONMember(name: name, value: try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(members)
            case nil: throw fail(.unexpectedEnd)
            default: throw fail(.expectedCommaOrBrace)
            }
        }
    }

    private static func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
            if Self.isDigit(current) { throw fail(.leadingZero) }
        } else {
            guard Self.isDigit(current) else { throw fail(.expectedDigit) }
            while Self.isDigit(current) { position += 1 }
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard Self.isDigit(current) else { throw fail(.expectedFractionDigit) }
            while Self.isDigit(current) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard Self.isDigit(current) else { throw fail(.expectedExponentDigit) }
            while Self.isDigit(current) { position += 1 }
        }
        return JSONNumber(validLiteral: String(decoding: bytes[start..<position], as: UTF8.self))
    }

    /// A string starting at its opening quote. Validates UTF-8 and escapes; keeps the literal as written.
    private mutating func parseString() throws(JSONSyntaxError) -> JSONString {
        position += 1  // opening quote
        let start = position
        var decoded: [UInt8] = []
        while true {
            guard let byte = current else { throw fail(.unterminatedString) }
            switch byte {
            case UInt8(ascii: "\""):
                let literal = String(decoding: bytes[start..<position], as: UTF8.self)
                position += 1
                return JSONString(literal: literal, value: String(decoding: decoded, as: UTF8.self))
            case UInt8(ascii: "\\"):
                try parseEscape(into: &decoded)
            case 0x00..<0x20:
                throw fail(.controlCharacterInString)
            case 0x20..<0x80:
                decoded.append(byte)
                position += 1
            default:
                try parseUTF8Sequence(into: &decoded)
            }
        }
    }

    private mutating func parseEscape(into decoded: inout [UInt8]) throws(JSONSyntaxError) {
        let escapeOffset = position
        position += 1  // backslash
        guard let byte = current else { throw fail(.unterminatedString) }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xDC00...0xDFFF).contains(scalar) {
                throw fail(.loneLowSurrogate, at: escapeOffset)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw fail(.loneHighSurrogate, at: escapeOffset)
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail(.loneHighSurrogate, at: escapeOffset)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail(.invalidUnicodeEscape, at: escapeOffset) }
            decoded.append(contentsOf: Array(String(unicode).utf8))
        default:
            throw fail(.invalidEscape, at: escapeOffset)
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw fail(.unterminatedString) }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail(.expectedHexDigits)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// One multi-byte UTF-8 sequence: no overlong forms, no surrogates, nothing above U+10FFFF.
    private mutating func parseUTF8Sequence(into decoded: inout [UInt8]) throws(JSONSyntaxError) {
        let lead = bytes[position]
        let length: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; highest = 0x9F  // no UTF-16 surrogates
        case 0xF0: length = 4; lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; highest = 0x8F  // nothing above U+10FFFF
        default: throw fail(.invalidUTF8)
        }
        guard position + length <= bytes.count else { throw fail(.invalidUTF8) }
        let second = bytes[position + 1]
        guard second >= lowest && second <= highest else { throw fail(.invalidUTF8) }
        for offset in 2..<max(2, length) where bytes[position + offset] & 0xC0 != 0x80 {
            throw fail(.invalidUTF8)
        }
        decoded.append(contentsOf: bytes[position..<(position + length)])
        position += length
    }
}
