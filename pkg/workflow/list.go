package workflow

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
)

// List is what a runtime sees (discover.List), each skill stax installed
// with the package, version and digest it came from, as the record of
// its folder says. A record that cannot be read leaves the skills of its
// folder without one and says why in the listing's warnings: a listing
// is for looking, and the install that next uses the folder refuses the
// record with the fix.
func List(opts discover.Options) (*discover.Listing, error) {
	l, err := discover.List(opts)
	if err != nil {
		return nil, errdefs.IO(err)
	}
	records := map[string]*install.Record{} // by folder; nil when unreadable
	for i := range l.Skills {
		s := &l.Skills[i]
		rec, read := records[s.Location]
		if !read {
			if rec, err = install.ReadRecord(s.Location); err != nil {
				l.Warnings = append(l.Warnings, fmt.Sprintf("cannot read what stax installed in %s: %v", s.Location, err))
			}
			records[s.Location] = rec
		}
		if rec == nil {
			continue
		}
		if in, ok := rec.Skills[s.Key]; ok {
			s.Installed = &discover.Origin{Package: in.Package, Version: in.PackageVersion, Digest: in.PackageDigest.String()}
		}
	}
	return l, nil
}
