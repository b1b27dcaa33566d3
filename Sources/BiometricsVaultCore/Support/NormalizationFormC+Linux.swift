#if !canImport(Darwin)
extension String {
    /// Whether the text is already in Unicode Normalization Form C, compared byte by byte (Swift's String
    /// `==` treats canonically equivalent spellings as equal). `_nfcCodeUnits` is the standard library's
    /// own NFC, the one String comparison uses; Foundation's `precomposedStringWithCanonicalMapping` would
    /// link full Foundation and ICU's data (34 MB) into every binary here.
    var isInNormalizationFormC: Bool {
        utf8.elementsEqual(_nfcCodeUnits)
    }
}
#endif
