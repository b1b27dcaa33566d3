#if canImport(Darwin)
import Foundation

extension String {
    /// Whether the text is already in Unicode Normalization Form C, compared scalar by scalar (Swift's
    /// String `==` treats canonically equivalent spellings as equal).
    var isInNormalizationFormC: Bool {
        precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(unicodeScalars)
    }
}
#endif
