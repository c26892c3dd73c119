package layers

import (
	"crypto/rand"
	"encoding/hex"
)

// StagingName is a fresh staging folder name for one purpose ("apply"),
// for folders made through an os.Root, which has no MkdirTemp; the name
// starts with StagingPrefix, so a leftover one is known for debris.
func StagingName(purpose string) string {
	suffix := make([]byte, 8)
	rand.Read(suffix)
	return StagingPrefix + purpose + "-" + hex.EncodeToString(suffix)
}
