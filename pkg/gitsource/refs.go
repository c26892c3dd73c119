package gitsource

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Refs are a repository's branches and tags as git ls-remote lists them.
type Refs struct {
	// Repository is the repository's URL without credentials.
	Repository string
	// Head is the default branch ("" when the server does not say).
	Head string
	// Tags maps each tag to its commit, annotated tags peeled.
	Tags map[string]string
	// Branches maps each branch to its commit.
	Branches map[string]string
}

// Kind says what a REF named.
type Kind string

const (
	KindTag    Kind = "tag"
	KindBranch Kind = "branch"
	KindCommit Kind = "commit"
)

// Resolved is a REF resolved to a commit.
type Resolved struct {
	// Ref is the tag or branch chosen, or the commit named.
	Ref    string
	Kind   Kind
	Commit string
}

// Check refuses what resolving a REF never makes, as a hand-edited
// stax.lock may hold: a Kind other than tag, branch or commit, a Commit
// that is not a full commit id, a Ref that is no tag or branch name (or,
// of a commit, not that commit).
func (r Resolved) Check() error {
	if !isCommitID(r.Commit) {
		return fmt.Errorf("commit %q is not a full commit id in lower case", r.Commit)
	}
	switch r.Kind {
	case KindTag, KindBranch:
		return checkRef(r.Ref)
	case KindCommit:
		if r.Ref != r.Commit {
			return fmt.Errorf("REF %q of kind commit is not its commit %s", r.Ref, r.Commit)
		}
		return nil
	}
	return fmt.Errorf("kind %q is none of tag, branch, commit", r.Kind)
}

// ListRefs lists the branches and tags of r's repository: one git
// ls-remote, through the user's git and its credentials. A repository
// that is missing or refused is unavailable, named with its credentials
// masked.
func (c *Cache) ListRefs(ctx context.Context, r Reference) (*Refs, error) {
	cwd, err := c.workDir()
	if err != nil {
		return nil, err
	}
	out, err := c.run(ctx, command{cwd: cwd, network: r.protocols(), secrets: r.secrets()},
		"ls-remote", "--symref", "--end-of-options", r.URL())
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	if err != nil {
		return nil, errdefs.MarkUnavailable(fmt.Errorf("list the branches and tags of git repository %s: %w: check the URL, and that your git can read it (git ls-remote %s)", termtext.Escape(r.Display()), err, termtext.Escape(r.Display())))
	}
	return parseRefs(r.Repository(), out)
}

// parseRefs reads git ls-remote --symref: "ref: refs/heads/main\tHEAD",
// then "OID\tREFNAME" lines, an annotated tag followed by its REFNAME^{}.
func parseRefs(repo string, out []byte) (*Refs, error) {
	refs := &Refs{Repository: repo, Tags: map[string]string{}, Branches: map[string]string{}}
	peeled := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		left, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		if target, isSym := strings.CutPrefix(left, "ref: "); isSym {
			if name == "HEAD" {
				refs.Head = strings.TrimPrefix(target, "refs/heads/")
			}
			continue
		}
		if !isCommitID(left) {
			return nil, errdefs.MarkUnavailable(fmt.Errorf("git repository %s: git ls-remote listed %q, which is not an object id", repo, left))
		}
		if checkRef(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(name, "refs/tags/"), "refs/heads/"), "^{}")) != nil {
			continue // a name Parse would refuse in a reference is never chosen, nor written down
		}
		if tag, ok := strings.CutPrefix(name, "refs/tags/"); ok {
			if base, isPeeled := strings.CutSuffix(tag, "^{}"); isPeeled {
				refs.Tags[base], peeled[base] = left, true
			} else if !peeled[tag] {
				refs.Tags[tag] = left
			}
		} else if branch, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			refs.Branches[branch] = left
		}
	}
	return refs, sc.Err()
}

// TagNames are the repository's tags, sorted as semver.SortTags sorts them.
func (refs *Refs) TagNames() []string {
	tags := make([]string, 0, len(refs.Tags))
	for t := range refs.Tags {
		tags = append(tags, t)
	}
	semver.SortTags(tags)
	return tags
}

// Resolve picks the commit that ref and rng name: a full commit as it
// is; a tag, else a branch, of that name; with no ref, the highest tag in
// rng, or with no rng either the highest release tag, else the default
// branch. What names nothing is unresolved, with the nearest tags.
func (refs *Refs) Resolve(ref string, rng *semver.Range) (Resolved, error) {
	switch {
	case ref != "" && isCommitID(strings.ToLower(ref)):
		return Resolved{Ref: strings.ToLower(ref), Kind: KindCommit, Commit: strings.ToLower(ref)}, nil
	case ref != "":
		name := strings.TrimPrefix(strings.TrimPrefix(ref, "refs/tags/"), "refs/heads/")
		if commit, ok := refs.Tags[name]; ok && !strings.HasPrefix(ref, "refs/heads/") {
			return Resolved{Ref: name, Kind: KindTag, Commit: commit}, nil
		}
		if commit, ok := refs.Branches[name]; ok && !strings.HasPrefix(ref, "refs/tags/") {
			return Resolved{Ref: name, Kind: KindBranch, Commit: commit}, nil
		}
		return Resolved{}, refs.unresolved(fmt.Sprintf("has no tag or branch %s", termtext.Escape(ref)), ref)
	}
	tags := refs.TagNames()
	if tag, ok := semver.Highest(tags, rng); ok {
		return Resolved{Ref: tag, Kind: KindTag, Commit: refs.Tags[tag]}, nil
	}
	if rng != nil {
		return Resolved{}, refs.unresolved(fmt.Sprintf("has no tag in the range %s", termtext.Escape(rng.String())), "")
	}
	if commit, ok := refs.Branches[refs.Head]; ok {
		return Resolved{Ref: refs.Head, Kind: KindBranch, Commit: commit}, nil
	}
	return Resolved{}, refs.unresolved("has no release tag and no default branch", "")
}

// Names reports whether r may be what ref, a REF as written, resolves to
// (see Resolve): the commit itself, else the tag or branch of its name.
// A recorded resolution that names another REF than the one declared is
// not that REF's (a stax.lock edited to take another tree).
func (r Resolved) Names(ref string) bool {
	if isCommitID(strings.ToLower(ref)) {
		return r.Kind == KindCommit && r.Ref == strings.ToLower(ref)
	}
	name, isTag := strings.CutPrefix(ref, "refs/tags/")
	name, isBranch := strings.CutPrefix(name, "refs/heads/")
	switch {
	case r.Ref != name:
		return false
	case isTag:
		return r.Kind == KindTag
	case isBranch:
		return r.Kind == KindBranch
	}
	return r.Kind == KindTag || r.Kind == KindBranch
}

// unresolved says what refs lack, with the tags nearest to near.
func (refs *Refs) unresolved(what, near string) error {
	msg := fmt.Sprintf("git repository %s %s", termtext.Escape(refs.Repository), what)
	if shown := semver.NearestTags(refs.TagNames(), near, 10); shown != "" {
		msg += "; it has the tags " + shown
	}
	if len(refs.Branches) > 0 && len(refs.Branches) <= 10 {
		branches := make([]string, 0, len(refs.Branches))
		for b := range refs.Branches {
			branches = append(branches, termtext.Escape(b))
		}
		slices.Sort(branches)
		msg += "; the branches " + strings.Join(branches, ", ")
	}
	return errdefs.Resolution(fmt.Errorf("%s", msg))
}

// isCommitID reports whether s is a full object id, SHA-1 or SHA-256, in
// lower case.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
