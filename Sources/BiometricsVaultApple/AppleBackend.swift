// Keychain + LocalAuthentication land here (issue: Apple backends).
