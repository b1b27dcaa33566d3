import Testing

@Test func placeholderSecretService() {}
