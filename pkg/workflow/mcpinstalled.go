package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/mcpserver"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// installedOf says, for each skill of l stax installed, what the record
// of its folder says (see List), the signer stax.lock of the project
// names for its package, and whether the trust policy requires that
// package to verify. A policy that cannot be read requires every
// package: a skill whose files drifted is then refused rather than
// served.
func installedOf(l *discover.Listing, d discover.Options, getenv func(string) string) (map[string]*mcpserver.Installed, []string) {
	var warnings []string
	records, err := userRecords(getenv)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("cannot read what stax installed in the user's folders: %v", err))
	}
	policy, perr := trust.LoadHomeFrom(getenv)
	if perr != nil {
		warnings = append(warnings, fmt.Sprintf("cannot read the trust policy, so a skill whose files differ from its package's is refused: %v", perr))
	}
	signers, err := lockedSigners(d.Project)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("cannot read which packages a signature verified: %v", err))
	}
	read := map[string]*install.Record{} // by folder; nil when unreadable
	out := map[string]*mcpserver.Installed{}
	for i := range l.Skills {
		s := &l.Skills[i]
		if !s.Visible() {
			continue
		}
		rec, done := read[s.Location]
		if !done {
			if rec, err = readListed(s, d.Home, records); err != nil {
				warnings = append(warnings, fmt.Sprintf("cannot read what stax installed in %s: %v", s.Location, err))
			}
			read[s.Location] = rec
		}
		if rec == nil {
			continue
		}
		in, ok := rec.Skills[s.Key]
		if !ok {
			continue
		}
		out[s.Dir] = &mcpserver.Installed{
			Package: in.Package, Version: in.PackageVersion, Digest: in.PackageDigest.String(),
			Signer:  signers[in.PackageDigest],
			Require: perr != nil || policy.Rule(trustpolicy.ScopeName(in.Package)).Mode == trustpolicy.ModeRequire,
			Files:   recordedFiles(in),
		}
	}
	return out, warnings
}

// lockedSigners are the signers stax.lock of project records, by package
// digest; none without a stax.lock.
func lockedSigners(project string) (map[digest.Digest]string, error) {
	l, err := lock.Read(filepath.Join(project, lock.FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[digest.Digest]string{}
	for _, p := range l.Packages {
		if p.Verified != nil {
			out[p.Digest] = p.Verified.Signer
		}
	}
	return out, nil
}

// parseRecordedDigest is digest.Parse(d), with the SHA-256 digests
// records hold checked without its regular expression: about 5 ms of
// user time when stax mcp --package starts on 4,000 files.
func parseRecordedDigest(d string) (digest.Digest, error) {
	enc, ok := strings.CutPrefix(d, digest.SHA256.String()+":")
	if !ok || len(enc) != digest.SHA256.Size()*2 || strings.Trim(enc, "0123456789abcdef") != "" {
		return digest.Parse(d)
	}
	return digest.Digest(d), nil
}

// recordedFiles are the files of a record entry, each "<mode> <digest>"
// with its stat "<size> <modification time in ns>"; an entry that does
// not parse is left out, and the file is then hashed.
func recordedFiles(in install.InstalledSkill) map[string]mcpserver.RecordedFile {
	out := make(map[string]mcpserver.RecordedFile, len(in.Files))
	for rel, v := range in.Files {
		_, d, _ := strings.Cut(v, " ")
		dg, err := parseRecordedDigest(d)
		if err != nil {
			continue
		}
		f := mcpserver.RecordedFile{Digest: dg, Size: -1}
		if size, mod, ok := strings.Cut(in.Stat[rel], " "); ok {
			s, serr := strconv.ParseInt(size, 10, 64)
			m, merr := strconv.ParseInt(mod, 10, 64)
			if serr == nil && merr == nil {
				f.Size, f.ModTime = s, m
			}
		}
		out[rel] = f
	}
	return out
}
