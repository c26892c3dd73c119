package target

import (
	"errors"
	"fmt"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/termtext"
)

// explainCorrupt explains err, content of the local store or of a layout
// that does not match its digest, with a fix that works when followed.
// The local store is stax's cache: its corrupt copy is removed, as npm
// and Go drop a cache entry that does not verify, so that running the
// command again fetches the blob anew rather than finding the bad copy
// there. A layout the user named is theirs: it is left as it is, and
// the message says how to restore it.
func (t *Target) explainCorrupt(err error) error {
	m := registry.Mismatch(err)
	var mismatch *artifact.MismatchError
	if !errors.As(err, &mismatch) {
		return errdefs.Reclassify(errdefs.DataLoss, fmt.Errorf("%s: content in %s does not match its digest (%w): the file was altered; copy or pull the package again", t.Name(), t.dir, m))
	}
	file := store.BlobFile(t.dir, mismatch.Blob)
	if t.Kind != KindLocal || !t.cache {
		return errdefs.Reclassify(errdefs.DataLoss, fmt.Errorf("%s: content in %s does not match its digest (%w): the file was altered, and stax leaves a layout you named as it is; nothing was written: remove %s, then copy the package into the layout again with `%s`",
			t.Name(), t.dir, m, file, termtext.Command("stax", "copy", "SRC", t.layoutRef())))
	}
	removed, rmErr := t.removeCorrupt(mismatch)
	switch {
	case removed && t.packedHere:
		return errdefs.Reclassify(errdefs.DataLoss, fmt.Errorf("%s: the local store's copy of a blob was corrupt, its content did not match its digest (%w); it was removed from the store, and nothing was written. No registry has this package (it was built here): build it again with `stax pack DIR -t %s`, then run the same command again",
			t.Name(), m, t.Name()))
	case removed:
		return errdefs.Reclassify(errdefs.DataLoss, fmt.Errorf("%s: the local store's copy of a blob was corrupt, its content did not match its digest (%w); it was removed from the store, and nothing was written: run the same command again to fetch it from %s",
			t.Name(), m, t.source()))
	}
	why := "removing it takes the store's write lock, which this command does not hold"
	if rmErr != nil && !errors.Is(rmErr, store.ErrBusy) {
		why = fmt.Sprintf("removing it failed: %v", rmErr)
	}
	// A reader of the store alone (render, validate --against) does not
	// fetch what the store lacks: pull does, into the store.
	then := "run the same command again to fetch it anew"
	switch {
	case t.packedHere:
		then = fmt.Sprintf("build the package again with `stax pack DIR -t %s`, and run the same command again", t.Name())
	case t.key == "" && t.Ref.Registry != "":
		then = fmt.Sprintf("fetch it again with `stax pull %s`, and run the same command again", t.Ref)
	}
	return errdefs.Reclassify(errdefs.DataLoss, fmt.Errorf("%s: the local store's copy of a blob is corrupt, its content does not match its digest (%w); nothing was written, and stax left the copy (%s): remove %s, then %s",
		t.Name(), m, why, file, then))
}

// removeCorrupt removes the local store's copy of the blob mismatch
// names: through the store t holds open for writing, else under the
// store's lock if no one holds it.
func (t *Target) removeCorrupt(mismatch *artifact.MismatchError) (bool, error) {
	if s, ok := t.GraphTarget.(*store.Store); ok {
		return s.RemoveCorrupt(mismatch.Blob)
	}
	return store.RemoveCorruptIn(t.dir, mismatch.Blob)
}

// source is where a package of the local store came from, for a message
// saying where it is fetched again.
func (t *Target) source() string {
	if t.key != "" || t.Ref.Registry == "" {
		return "its source"
	}
	return "registry " + t.Ref.Registry
}

// layoutRef is an oci: reference to the package t names in its layout,
// for a message saying how to copy it there again.
func (t *Target) layoutRef() string {
	tag := t.Ref.Tag
	if tag == "" {
		tag = "TAG"
	}
	return "oci:" + t.dir + ":" + tag
}
