import Testing

@Test func placeholderFileStore() {}
