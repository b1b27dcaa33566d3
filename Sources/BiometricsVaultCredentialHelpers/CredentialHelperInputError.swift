/// What a credential helper refuses in its client's request (not UTF-8, too long, a value that cannot be
/// one protocol line): the request is read or answered no further and nothing is stored. `message` says
/// what is wrong in words and never holds a secret; the CLI exits with its bad-input status.
package struct CredentialHelperInputError: Error, Sendable, Equatable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}
