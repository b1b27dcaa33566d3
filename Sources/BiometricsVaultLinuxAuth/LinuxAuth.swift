// fprintd / PAM / polkit authenticators land here (issue: Linux authentication). Linux only.
import BiometricsVaultCore
