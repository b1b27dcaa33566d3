print("biometrics-vault: not yet implemented")
