import Testing

@Test func placeholderLinuxAuth() {}
