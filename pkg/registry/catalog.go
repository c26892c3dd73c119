package registry

import (
	"context"

	"oras.land/oras-go/v2/registry/remote"
)

// The catalog (GET /v2/_catalog, which distribution serves and most
// hosted registries refuse) is read only to suggest the repository a
// user meant: far tighter bounds than a tag list's, since a large
// registry's catalog is not worth reading whole for a hint.
var CatalogLimits = TagLimits{Pages: 100, Tags: 100_000, Bytes: 8 << 20}

// ListRepositories calls fn with each page of the repositories the
// registry at host lists in its catalog, within CatalogLimits and with
// the checks ListTags makes of a tag list (a page's size, a loop).
func (c *Client) ListRepositories(ctx context.Context, host string, fn func([]string) error) error {
	reg, err := c.Registry(host)
	if err != nil {
		return err
	}
	// The size of a page is checked as a tag list's is.
	reg.Client = tagPages{next: c.http}
	return ListTags(ctx, catalog{reg}, "the catalog of registry "+host, NewTagBudget(CatalogLimits), fn)
}

// catalog lists a registry's repositories as a TagLister lists tags:
// both are pages of names, linked the same way.
type catalog struct{ reg *remote.Registry }

func (c catalog) Tags(ctx context.Context, last string, fn func([]string) error) error {
	return c.reg.Repositories(ctx, last, fn)
}
