package ledger

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"io"

	"golang.org/x/mod/sumdb/note"
)

// Secrets are what a ledger derives from its one root secret (the
// ErasureLedger construct's Secrets Manager secret): the key digest's HMAC
// key, the vault's key and the receipt log's signing key pair.
type Secrets struct {
	KeySecret, VaultSecret []byte
	Signer, Verifier       string
}

// LogKeyName names the receipt log's note key.
const LogKeyName = "erasure-ledger"

// DeriveSecrets derives a ledger's secrets from its root secret, each by
// HMAC-SHA256 under its own label: the same root always gives the same keys,
// so every reader and sweeper agrees without storing more secrets.
func DeriveSecrets(root string) (Secrets, error) {
	if len(root) < 32 {
		return Secrets{}, errors.New("ledger: the root secret must be at least 32 characters")
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, []byte(root))
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	signer, verifier, err := note.GenerateKey(io.Reader(bytes.NewReader(derive("receipt-log"))), LogKeyName)
	if err != nil {
		return Secrets{}, err
	}
	return Secrets{KeySecret: derive("key-digest"), VaultSecret: derive("vault"), Signer: signer, Verifier: verifier}, nil
}
