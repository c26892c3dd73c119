package main

import (
	"context"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// openDestination opens the layout an oci: tag names, else the local store.
func openDestination(ctx context.Context, global *globalOptions, tagRef *reference.Reference) (*target.Target, error) {
	dir, err := global.storeDir()
	if err != nil {
		return nil, err
	}
	opener := &target.Opener{StoreDir: dir, Warnings: global.errOut}
	if tagRef != nil && tagRef.IsLayout() {
		return opener.Open(ctx, *tagRef, store.ReadWrite)
	}
	return opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
}

// tagReference is the --tag reference with its tag defaulted to the
// package version, or NAME:VERSION without --tag.
func tagReference(tagRef *reference.Reference, def project.Definition) (reference.Reference, error) {
	if tagRef == nil {
		ref, err := reference.Parse(def.Name + ":" + def.Version)
		return ref, errdefs.Invalid(err)
	}
	ref := *tagRef
	if ref.Tag == "" {
		ref.Tag = def.Version
	}
	return ref, nil
}
