import Testing

@Test func placeholderCore() {}
