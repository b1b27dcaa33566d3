/// Where and why a JSON text is invalid: fixed words and a byte offset, never the input; only a
/// duplicated member's name is quoted (a name is structure, and the user needs to know which one).
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong; the raw value is the fixed words of ``description``.
    package enum Reason: String, CaseIterable, Sendable {
        case noValue = "no JSON value (empty or only white space)"
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

    package let reason: Reason
    /// The byte where the problem is (for a duplicate, the name's opening quote).
    package let offset: Int
    /// The repeated name, for ``Reason/duplicateMemberName`` only.
    package let memberName: String?

    init(reason: Reason, offset: Int, memberName: String? = nil) {
        self.reason = reason
        self.offset = offset
        self.memberName = memberName
    }

    /// E.g. `duplicate member name "user" at byte 27`; the name JSON-escaped, at most 64 characters.
    package var description: String {
        let name = memberName.map { " \"" + JSONString($0).literal.prefix(64) + "\"" } ?? ""
        return "\(reason.rawValue)\(name) at byte \(offset)"
    }
}
