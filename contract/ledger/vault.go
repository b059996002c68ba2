package ledger

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// Vault seals the part of an open request a re-broadcast must carry (its key,
// or a REFILE's addresses and account): the ledger keeps it only sealed, only
// while the request is open, and removes it when the request completes,
// exhausts or expires. A receipt never holds it. On AWS the vault is a KMS key
// (KMSVault); locally, LocalVault.
type Vault interface {
	Seal(ctx context.Context, requestID string, plaintext []byte) (string, error)
	Open(ctx context.Context, requestID string, sealed string) ([]byte, error)
}

// LocalVault seals with AES-256-GCM under a 32-byte secret, the requestId
// bound as additional data (a sealed key moved to another request does not
// open).
type LocalVault struct{ aead cipher.AEAD }

// NewLocalVault returns a vault keyed by a 32-byte secret.
func NewLocalVault(secret []byte) (*LocalVault, error) {
	if len(secret) != 32 {
		return nil, errors.New("ledger: the vault secret must be 32 bytes")
	}
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &LocalVault{aead: aead}, nil
}

// Seal encrypts plaintext for requestID.
func (v *LocalVault) Seal(_ context.Context, requestID string, plaintext []byte) (string, error) {
	nonce := make([]byte, v.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(v.aead.Seal(nonce, nonce, plaintext, []byte(requestID))), nil
}

// Open decrypts what Seal sealed for requestID.
func (v *LocalVault) Open(_ context.Context, requestID string, sealed string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < v.aead.NonceSize() {
		return nil, errors.New("ledger: a sealed key is malformed")
	}
	out, err := v.aead.Open(nil, b[:v.aead.NonceSize()], b[v.aead.NonceSize():], []byte(requestID))
	if err != nil {
		return nil, fmt.Errorf("ledger: a sealed key does not open for its request")
	}
	return out, nil
}
