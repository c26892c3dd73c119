package workflow

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
)

// List is what a runtime sees (discover.List), each skill stax installed
// with the package, version and digest it came from, as the record of
// its folder says. A record that cannot be read leaves the skills of its
// folder without one and says why in the listing's warnings: a listing
// is for looking, and the install that next uses the folder refuses the
// record with the fix. The records of user-scope folders are under
// $STAX_HOME, found through getenv; when it cannot be located, those
// folders are read as an older stax kept them, with a warning.
func List(opts discover.Options, getenv func(string) string) (*discover.Listing, error) {
	l, err := discover.List(opts)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	records, err := userRecords(getenv)
	if err != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("cannot read what stax installed in the user's folders: %v", err))
	}
	read := map[string]*install.Record{} // by folder; nil when unreadable
	for i := range l.Skills {
		s := &l.Skills[i]
		rec, done := read[s.Location]
		if !done {
			if rec, err = readListed(s, opts.Home, records); err != nil {
				l.Warnings = append(l.Warnings, fmt.Sprintf("cannot read what stax installed in %s: %v", s.Location, err))
			}
			read[s.Location] = rec
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

// readListed reads the record of the folder s was found in: a user-scope
// folder's is under records, named after the folder's path under home.
func readListed(s *discover.Skill, home, records string) (*install.Record, error) {
	recordDir := ""
	if s.Scope == agent.ScopeUser {
		var err error
		if recordDir, err = install.RecordDir(records, home, s.Location); err != nil {
			return nil, err
		}
	}
	return install.ReadRecordIn(s.Location, recordDir)
}
