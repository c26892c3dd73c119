package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// pruneFixture is a store holding a tagged package with a signature, and
// what nothing tagged reaches: a package a moved tag left, with a
// signature of its own, and a blob a killed pull left.
type pruneFixture struct {
	dir           string
	kept, removed []ocispec.Descriptor
	// prunedManifests are the manifests index.json lists no more.
	prunedManifests             []digest.Digest
	tagged, signature, untagged ocispec.Descriptor
}

func newPruneFixture(t *testing.T) *pruneFixture {
	t.Helper()
	ctx := context.Background()
	f := &pruneFixture{}
	f.dir, f.tagged = storeWithPackage(t)
	s, err := OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		t.Helper()
		desc := content.NewDescriptorFromBytes(mediaType, data)
		if err := s.Push(ctx, desc, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return desc
	}
	manifest := func(subject *ocispec.Descriptor, layer string) (ocispec.Descriptor, []ocispec.Descriptor) {
		t.Helper()
		config := push("application/vnd.stax.config.v1+json", []byte(`{"kind":"package","name":"`+layer+`"}`))
		l := push("application/octet-stream", []byte(layer))
		data, err := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			Config: config, Layers: []ocispec.Descriptor{l}, Subject: subject})
		if err != nil {
			t.Fatal(err)
		}
		return push(ocispec.MediaTypeImageManifest, data), []ocispec.Descriptor{config, l}
	}
	var blobs []ocispec.Descriptor
	f.signature, blobs = manifest(&f.tagged, "signature of the tagged")
	f.kept = append(blobs, f.tagged, f.signature)
	f.untagged, blobs = manifest(nil, "the package a moved tag left")
	f.removed = append(blobs, f.untagged)
	oldSignature, blobs := manifest(&f.untagged, "signature of the untagged")
	f.removed = append(f.removed, append(blobs, oldSignature)...)
	for _, tag := range []string{ReferrersTag(f.tagged.Digest), ReferrersTag(f.untagged.Digest)} {
		desc, err := s.Resolve(ctx, tag)
		if err != nil {
			t.Fatalf("the referrers index %s: %v", tag, err)
		}
		if tag == ReferrersTag(f.tagged.Digest) {
			f.kept = append(f.kept, desc)
		} else {
			f.removed = append(f.removed, desc)
			f.prunedManifests = []digest.Digest{f.untagged.Digest, oldSignature.Digest, desc.Digest}
			slices.Sort(f.prunedManifests)
		}
	}
	data := []byte("a layer a killed pull left")
	orphan := content.NewDescriptorFromBytes("application/octet-stream", data)
	if err := WriteBlob(f.dir, func(w io.Writer) (digest.Digest, error) {
		_, err := w.Write(data)
		return orphan.Digest, err
	}); err != nil {
		t.Fatal(err)
	}
	f.removed = append(f.removed, orphan)
	return f
}

func (f *pruneFixture) blobExists(t *testing.T, d digest.Digest) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(f.dir, "blobs", d.Algorithm().String(), d.Encoded()))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

// damage flips a byte of the store's copy of the blob d, as a disk
// would, and returns its file, relative to f.dir, and what it now holds.
func (f *pruneFixture) damage(t *testing.T, d digest.Digest) (string, []byte) {
	t.Helper()
	rel := filepath.Join("blobs", d.Algorithm().String(), d.Encoded())
	name := filepath.Join(f.dir, rel)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-2] ^= 1
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return rel, data
}

// Prune removes what no tag reaches, with its blobs, and keeps what a tag
// names with everything it refers to, its signature and the referrers
// index that lists it; a dry run says the same and changes nothing. The
// store works after, and a second prune finds nothing.
func TestPruneRemovesWhatNoTagReaches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPruneFixture(t)
	var wantBytes int64
	for _, d := range f.removed {
		wantBytes += d.Size
	}
	wantManifests := f.prunedManifests
	check := func(what string, got *Pruned) {
		t.Helper()
		if !slices.Equal(got.Manifests, wantManifests) || !slices.Equal(got.Tags, []string{ReferrersTag(f.untagged.Digest)}) ||
			got.Blobs != len(f.removed) || got.Bytes != wantBytes {
			t.Errorf("%s: %+v, want manifests %v, the untagged's referrers tag, %d blobs of %d bytes", what, got, wantManifests, len(f.removed), wantBytes)
		}
	}

	before := tree(t, f.dir)
	r, err := OpenLocal(ctx, f.dir, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Prune(ctx, true)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	check("dry run", got)
	if after := tree(t, f.dir); after != before {
		t.Errorf("a dry run changed the store:\n%s\nwas:\n%s", after, before)
	}

	s, err := OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.Prune(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	check("prune", got)
	if _, err := s.Resolve(ctx, f.untagged.Digest.String()); err == nil {
		t.Error("the store still resolves a pruned manifest")
	}
	s.Close()
	for _, d := range f.removed {
		if f.blobExists(t, d.Digest) {
			t.Errorf("%s (%s) is still in blobs/", d.Digest, d.MediaType)
		}
	}
	for _, d := range f.kept {
		if !f.blobExists(t, d.Digest) {
			t.Errorf("%s (%s), which a tag reaches, was removed", d.Digest, d.MediaType)
		}
	}

	s, err = OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Repaired != "" {
		t.Errorf("the pruned store was repaired: %s", s.Repaired)
	}
	if got, err := s.Resolve(ctx, "a:1"); err != nil || got.Digest != f.tagged.Digest {
		t.Errorf("resolve a:1 after a prune: %v, %v", got.Digest, err)
	}
	preds, err := s.Predecessors(ctx, f.tagged)
	if err != nil || !slices.ContainsFunc(preds, func(d ocispec.Descriptor) bool { return d.Digest == f.signature.Digest }) {
		t.Errorf("the signature of a:1 after a prune: %v, %v", preds, err)
	}
	again, err := s.Prune(ctx, false)
	if err != nil || len(again.Manifests)+len(again.Tags)+again.Blobs != 0 {
		t.Errorf("a second prune: %+v, %v; want nothing", again, err)
	}
}

// A manifest a tag names that does not match its digest stops the prune
// before anything else is removed: what it refers to cannot be known. The
// store is stax's cache, and prune holds its write lock: the corrupt copy
// is removed, so that the next prune, which no longer reads it, succeeds.
// The tag is kept: a pull fetches the manifest again under it.
func TestPruneStopsAtADamagedManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPruneFixture(t)
	rel, data := f.damage(t, f.tagged.Digest)
	line := rel + " " + digest.FromBytes(data).String() + "\n"
	want := strings.Replace(tree(t, f.dir), line, "", 1)
	s, err := OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Prune(ctx, false)
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(fmt.Sprint(err), "run `stax store prune` again") {
		t.Fatalf("prune of a store with a damaged tagged manifest: %v (%v), want data loss and the fix", err, errdefs.Of(err))
	}
	if after := tree(t, f.dir); after != want {
		t.Errorf("a failed prune changed more than the damaged manifest:\n%s\nwant:\n%s", after, want)
	}
	if _, err := s.Prune(ctx, false); err != nil {
		t.Fatalf("the prune after the damaged manifest was removed: %v", err)
	}
	tagged := false
	for ref, d := range s.index.refs {
		tagged = tagged || (d.Digest == f.tagged.Digest && ref != d.Digest.String())
	}
	if !tagged {
		t.Errorf("the prunes dropped the tag of the damaged manifest: %v", s.index.refs)
	}
}

// A manifest listed by digest alone that does not match its digest, read
// for its subject, is removed as a damaged tagged one is, and the next
// prune succeeds; before, every prune failed on it with no fix.
func TestPruneRemovesADamagedUntaggedManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPruneFixture(t)
	rel, _ := f.damage(t, f.untagged.Digest)
	name := filepath.Join(f.dir, rel)
	s, err := OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Prune(ctx, false)
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(fmt.Sprint(err), "run `stax store prune` again") {
		t.Fatalf("prune of a store with a damaged untagged manifest: %v (%v), want data loss and the fix", err, errdefs.Of(err))
	}
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the damaged manifest is still stored: %v", err)
	}
	if _, err := s.Prune(ctx, false); err != nil {
		t.Fatalf("the prune after the damaged manifest was removed: %v", err)
	}
}

// tree lists the files under dir with the digests of their content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out.WriteString(rel)
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out.WriteString(" " + digest.FromBytes(data).String())
		}
		out.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A tagged manifest whose stored copy holds its digest, listed in
// index.json with another size, is not corrupt: prune must not say it
// removed it (it keeps the good copy, which may be the only one), nor
// send the user round prunes that fail the same way each time.
func TestPruneKeepsAGoodManifestListedWithAnotherSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPruneFixture(t)
	indexFile := filepath.Join(f.dir, "index.json")
	data, err := os.ReadFile(indexFile)
	if err != nil {
		t.Fatal(err)
	}
	var index ocispec.Index
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	for i, m := range index.Manifests {
		if m.Digest == f.tagged.Digest {
			index.Manifests[i].Size--
		}
	}
	if data, err = json.Marshal(index); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(indexFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Prune(ctx, false)
	if errdefs.Of(err) != errdefs.DataLoss || strings.Contains(fmt.Sprint(err), "was removed from the store") || !strings.Contains(fmt.Sprint(err), "nothing was removed") {
		t.Errorf("prune of a good manifest recorded with another size: %v (%v), want data loss saying nothing was removed", err, errdefs.Of(err))
	}
	if _, err := os.Stat(filepath.Join(f.dir, "blobs", "sha256", f.tagged.Digest.Encoded())); err != nil {
		t.Errorf("the good copy of the manifest is gone: %v", err)
	}
}

// A dry run changes nothing, in a store opened for writing too: a
// damaged manifest is left, and the prune says to run without --dry-run.
func TestPruneDryRunLeavesADamagedManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPruneFixture(t)
	f.damage(t, f.tagged.Digest)
	before := tree(t, f.dir)
	s, err := OpenLocal(ctx, f.dir, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Prune(ctx, true); errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(fmt.Sprint(err), "without --dry-run") {
		t.Errorf("dry run over a damaged manifest: %v (%v), want data loss saying to run without --dry-run", err, errdefs.Of(err))
	}
	if after := tree(t, f.dir); after != before {
		t.Errorf("a dry run changed the store:\n%s\nwas:\n%s", after, before)
	}
}
