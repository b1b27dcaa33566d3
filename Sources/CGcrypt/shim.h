#ifndef CGCRYPT_SHIM_H
#define CGCRYPT_SHIM_H
// libgcrypt, as libsecret uses it, for the Secret Service session's crypto only (Diffie-Hellman, HMAC-SHA256
// for HKDF, AES-128-CBC), in Sources/BiometricsVaultSecretService/SessionEncryption.swift.
#include <gcrypt.h>
#endif
