/// A recursive-descent RFC 8259 parser over UTF-8 bytes (recursion bounded by the depth limit).
struct JSONParser {
    let bytes: [UInt8]
    var position = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw fail(.noValue) }
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
        var names = Set<[UInt8]>()
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
            guard names.insert(Array(name.value.utf8)).inserted else {
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
