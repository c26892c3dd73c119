package target_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/target"
)

// A local tag read before anything was packed or pulled here, when there
// is no local store yet, is a tag the store does not hold: the error says
// so and how to get it, not how to name an OCI layout, which the user
// did not name.
func TestOpenStoredWithoutAStore(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	o := &target.Opener{StoreDir: store}
	ref, err := reference.Parse("acme/skils:1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.OpenStored(context.Background(), ref)
	want := "acme/skils:1 is not in the local store " + store + ": pack it with `stax pack -t acme/skils:1`, or pull it"
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "OCI layout") {
		t.Errorf("OpenStored without a store = %v (class %v), want an invalid argument saying %q", err, errdefs.Of(err), want)
	}
}
