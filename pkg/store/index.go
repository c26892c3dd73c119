package store

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// layoutIndex is what index.json records, as oras-go's layout store keeps
// it: every manifest pushed, by digest, and every tag.
type layoutIndex struct {
	// index is index.json as read; its Manifests are rewritten on save.
	index ocispec.Index
	// refs maps each tag, and each manifest's digest, to its descriptor.
	refs map[string]ocispec.Descriptor
	// encode writes the index; a test stops it half way.
	encode func(io.Writer, *ocispec.Index) error
}

func newLayoutIndex(index ocispec.Index) *layoutIndex {
	ix := &layoutIndex{index: index, refs: map[string]ocispec.Descriptor{}, encode: encodeIndex}
	for _, desc := range index.Manifests {
		ix.add(desc)
	}
	ix.index.Manifests = nil
	return ix
}

// add records desc, an entry of index.json: by its digest, and by the tag
// its ref.name annotation names.
func (ix *layoutIndex) add(desc ocispec.Descriptor) {
	ix.refs[desc.Digest.String()] = withoutRefName(desc)
	if ref := desc.Annotations[ocispec.AnnotationRefName]; ref != "" {
		ix.refs[ref] = desc
	}
}

// encodeIndex writes index as json.Encoder does, but an entry of its
// manifests at a time: a store of many tags is never held encoded whole.
func encodeIndex(w io.Writer, index *ocispec.Index) error {
	head := *index
	head.Manifests = []ocispec.Descriptor{}
	data, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	before, after, ok := bytes.Cut(data, []byte(`"manifests":[]`))
	if !ok {
		return fmt.Errorf("encode %s: no manifests in %s", ocispec.ImageIndexFile, data)
	}
	buf := bufio.NewWriterSize(w, 64<<10)
	buf.Write(before)
	buf.WriteString(`"manifests":[`)
	for i, desc := range index.Manifests {
		entry, err := json.Marshal(desc)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		if _, err := buf.Write(entry); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	buf.Write(after)
	buf.WriteByte('\n')
	return buf.Flush()
}

// manifests lists the index's entries as oras-go writes them: one per tag,
// named by the ref.name annotation, then the manifests no tag names;
// sorted, so that the same store always writes the same file.
func (ix *layoutIndex) manifests() []ocispec.Descriptor {
	tagged := map[digest.Digest]bool{}
	manifests := []ocispec.Descriptor{}
	for _, ref := range slices.Sorted(maps.Keys(ix.refs)) {
		desc := ix.refs[ref]
		if ref == desc.Digest.String() {
			continue
		}
		annotations := maps.Clone(desc.Annotations)
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[ocispec.AnnotationRefName] = ref
		desc.Annotations = annotations
		manifests = append(manifests, desc)
		tagged[desc.Digest] = true
	}
	for _, ref := range slices.Sorted(maps.Keys(ix.refs)) {
		desc := ix.refs[ref]
		if ref == desc.Digest.String() && !tagged[desc.Digest] {
			manifests = append(manifests, withoutRefName(desc))
		}
	}
	return manifests
}

func withoutRefName(desc ocispec.Descriptor) ocispec.Descriptor {
	if _, ok := desc.Annotations[ocispec.AnnotationRefName]; !ok {
		return desc
	}
	desc.Annotations = maps.Clone(desc.Annotations)
	delete(desc.Annotations, ocispec.AnnotationRefName)
	if len(desc.Annotations) == 0 {
		desc.Annotations = nil
	}
	return desc
}

// saveIndex replaces index.json with the index, in one step: the new
// content goes to a temporary file beside it, is synced, and is renamed
// over the old. A process killed at any point leaves the old index or
// the new, never a torn one. The caller holds s.mu.
func (s *Store) saveIndex() error {
	index := s.index.index
	index.Manifests = s.index.manifests()
	err := atomicfile.WriteIn(s.root, ocispec.ImageIndexFile, 0o644, func(w io.Writer) error {
		return s.index.encode(&boundedWriter{w: w, n: MaxIndexSize}, &index)
	})
	if errors.Is(err, errIndexFull) {
		fix := "copy what you need into a new layout"
		if s.lock != nil {
			fix = "`stax store prune` removes the packages no tag names; the store is a cache of registries, which can also be removed whole (rm -r " + s.Dir + ")"
		}
		return errdefs.MarkLocal(fmt.Errorf("%s of %s would be over %d bytes with its %d entries, more than stax reads: it was left as it was; %s",
			ocispec.ImageIndexFile, s.Dir, MaxIndexSize, len(index.Manifests), fix))
	}
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("write %s of %s: %w", ocispec.ImageIndexFile, s.Dir, err))
	}
	return nil
}

// errIndexFull is a write of index.json past MaxIndexSize.
var errIndexFull = errors.New("index.json over its limit")

// boundedWriter refuses the write that would take it past n bytes, so
// that the store never writes an index.json its readers refuse.
type boundedWriter struct {
	w io.Writer
	n int64
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > b.n {
		return 0, errIndexFull
	}
	n, err := b.w.Write(p)
	b.n -= int64(n)
	return n, err
}

// loadIndex reads index.json, one entry at a time, and rebuilds it when
// it is missing or cannot be parsed (see rebuildIndex).
func (s *Store) loadIndex(ctx context.Context, what string) error {
	if err := CheckIndexFile(s.Dir); err != nil {
		return err
	}
	f, err := s.root.Open(ocispec.ImageIndexFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errdefs.MarkLocal(fmt.Errorf("read %s of %s %s: %w", ocispec.ImageIndexFile, what, s.Dir, err))
	}
	if err == nil {
		defer f.Close()
		read := newLayoutIndex(ocispec.Index{})
		index, parseErr := decodeIndex(f, func(desc ocispec.Descriptor) error { read.add(desc); return nil })
		var ioErr *readError
		if errors.As(parseErr, &ioErr) {
			return errdefs.MarkLocal(fmt.Errorf("read %s of %s %s: %w", ocispec.ImageIndexFile, what, s.Dir, ioErr.err))
		}
		if parseErr == nil {
			read.index = index
			s.index = read
			return nil
		}
		s.index, s.Repaired, err = rebuildIndex(ctx, s.root, read)
		if err != nil {
			return errdefs.MarkLocal(fmt.Errorf("%s %s: %s is damaged (%v), and rebuilding it failed: %w", what, s.Dir, ocispec.ImageIndexFile, parseErr, err))
		}
		s.Repaired = fmt.Sprintf("%s of the %s %s could not be read (%v): %s", ocispec.ImageIndexFile, what, s.Dir, parseErr, s.Repaired)
	} else if s.index, s.Repaired, err = rebuildIndex(ctx, s.root, nil); err != nil {
		return errdefs.MarkLocal(fmt.Errorf("%s %s has no %s, and rebuilding it failed: %w", what, s.Dir, ocispec.ImageIndexFile, err))
	} else if s.Repaired != "" {
		s.Repaired = fmt.Sprintf("%s of the %s %s was missing: %s", ocispec.ImageIndexFile, what, s.Dir, s.Repaired)
	}
	return s.saveIndex()
}

// rebuildIndex rebuilds the index of the layout at root from what can be
// proven, and says what it rebuilt. index.json is now always replaced in
// one step, so a damaged one was left by an earlier version of stax (or
// another tool) killed while writing it, or by a failing disk: there is
// no earlier copy of it to go back to. What can be proven is:
//
//   - the manifests: every blob that parses as an image manifest or index
//     and matches its digest. oras-go lists every manifest it stores in
//     the index, so all of them go back in, untagged; nothing is lost, and
//     they can be pulled and copied by digest.
//   - the tags that the readable part of the damaged file records in
//     complete entries (salvaged), for manifests found in the blobs. A
//     writer killed part way through wrote a prefix of the new index: what
//     it holds whole is what the store held.
//
// Other tags cannot be proven: a tag is a name the user gave, which no
// blob records (a package's own name says nothing of the registry and
// repository it was pulled from). They are lost, and the message says to
// pull or pack those packages again.
func rebuildIndex(ctx context.Context, root *os.Root, salvaged *layoutIndex) (*layoutIndex, string, error) {
	found, err := findManifests(ctx, root)
	if err != nil {
		return nil, "", err
	}
	index := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex}
	ix := newLayoutIndex(index)
	for _, desc := range found {
		ix.refs[desc.Digest.String()] = desc
	}
	var tags []string
	if salvaged != nil {
		for _, ref := range slices.Sorted(maps.Keys(salvaged.refs)) {
			desc := salvaged.refs[ref]
			if ref == desc.Digest.String() {
				continue
			}
			if got, ok := ix.refs[desc.Digest.String()]; ok && got.Size == desc.Size {
				ix.refs[ref] = desc
				tags = append(tags, ref)
			}
		}
	}
	if salvaged == nil && len(found) == 0 {
		return ix, "", nil
	}
	msg := fmt.Sprintf("rebuilt it from the %d manifests in blobs/", len(found))
	switch {
	case len(tags) > 0:
		msg += fmt.Sprintf(", and kept the tags it still recorded whole (%s); other tags are lost: pull or pack those packages again", strings.Join(tags, ", "))
	case len(found) > 0:
		msg += "; its tags are lost: pull or pack those packages again"
	}
	return ix, msg, nil
}

// maxManifestSize is the size of the largest blob rebuildIndex reads to
// learn whether it is a manifest: oras-go refuses larger manifests too.
const maxManifestSize = 4 << 20

// findManifests returns the descriptors of the blobs of the layout at
// root that are image manifests or indexes whose content matches their
// digest.
func findManifests(ctx context.Context, root *os.Root) ([]ocispec.Descriptor, error) {
	var found []ocispec.Descriptor
	for _, alg := range []digest.Algorithm{digest.SHA256, digest.SHA384, digest.SHA512} {
		dir := path.Join(ocispec.ImageBlobsDir, alg.String())
		entries, err := fs.ReadDir(root.FS(), dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d := digest.NewDigestFromEncoded(alg, e.Name())
			if !e.Type().IsRegular() || d.Validate() != nil {
				continue
			}
			desc, ok, err := readManifest(root, path.Join(dir, e.Name()), d)
			if err != nil {
				return nil, err
			}
			if ok {
				found = append(found, desc)
			}
		}
	}
	return found, nil
}

// readManifest reads the blob d at name and describes it if it is a
// manifest or an index that matches d.
func readManifest(root *os.Root, name string, d digest.Digest) (ocispec.Descriptor, bool, error) {
	f, err := root.Open(name)
	if err != nil {
		return ocispec.Descriptor{}, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return ocispec.Descriptor{}, false, err
	}
	if len(data) > maxManifestSize || d.Algorithm().FromBytes(data) != d {
		return ocispec.Descriptor{}, false, nil
	}
	var m struct {
		SchemaVersion int                  `json:"schemaVersion"`
		MediaType     string               `json:"mediaType"`
		ArtifactType  string               `json:"artifactType"`
		Config        *ocispec.Descriptor  `json:"config"`
		Layers        []ocispec.Descriptor `json:"layers"`
		Manifests     []ocispec.Descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.SchemaVersion != 2 {
		return ocispec.Descriptor{}, false, nil
	}
	mediaType := m.MediaType
	switch {
	case mediaType != "":
		if !isManifest(mediaType) {
			return ocispec.Descriptor{}, false, nil
		}
	case m.Config != nil && m.Manifests == nil:
		mediaType = ocispec.MediaTypeImageManifest
	case m.Manifests != nil && m.Config == nil:
		mediaType = ocispec.MediaTypeImageIndex
	default:
		return ocispec.Descriptor{}, false, nil
	}
	return ocispec.Descriptor{MediaType: mediaType, ArtifactType: m.ArtifactType, Digest: d, Size: int64(len(data))}, true, nil
}

// isManifest says whether mediaType is that of a manifest or an index,
// which the layout's index lists: the media types oras-go lists.
func isManifest(mediaType string) bool {
	switch mediaType {
	case ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex,
		"application/vnd.docker.distribution.manifest.v2+json",
		"application/vnd.docker.distribution.manifest.list.v2+json",
		"application/vnd.oci.artifact.manifest.v1+json":
		return true
	}
	return false
}

// decodeIndex reads the index.json r streams, at most MaxIndexSize bytes,
// handing each entry of its manifests to each as it is read: the file is
// never held whole, nor its entries in a slice, so that a store of many
// tags is read in the memory its tags take. The index is returned without
// its manifests. A failure to read r is a *readError; any other error is
// a file that is not an index. On a torn file, each has been given the
// entries the file holds whole, with a valid digest.
func decodeIndex(r io.Reader, each func(ocispec.Descriptor) error) (ocispec.Index, error) {
	limited := &io.LimitedReader{R: r, N: MaxIndexSize + 1}
	dec := json.NewDecoder(&errorReader{r: limited})
	var index ocispec.Index
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return index, indexError(limited, err, "not a JSON object")
	}
	rest := map[string]json.RawMessage{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return index, indexError(limited, err, "")
		}
		if key != "manifests" {
			var value json.RawMessage
			if err := dec.Decode(&value); err != nil {
				return index, indexError(limited, err, "")
			}
			rest[key.(string)] = value
			continue
		}
		if err := decodeManifests(dec, each); err != nil {
			return index, indexError(limited, err, "")
		}
	}
	if _, err := dec.Token(); err != nil {
		return index, indexError(limited, err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return index, indexError(limited, err, "data after the index")
	}
	data, err := json.Marshal(rest)
	if err != nil {
		return index, err
	}
	return index, json.Unmarshal(data, &index)
}

// decodeManifests reads the manifests array of an index, an entry at a
// time.
func decodeManifests(dec *json.Decoder, each func(ocispec.Descriptor) error) error {
	if tok, err := dec.Token(); err != nil {
		return err
	} else if tok == nil {
		return nil
	} else if tok != json.Delim('[') {
		return errors.New("manifests is not an array")
	}
	// An entry with a bad digest is skipped, not the end of the read: a
	// rebuilt index keeps every entry that can be kept. The error is
	// still returned once the array is read, so the index counts as
	// damaged.
	var bad error
	for dec.More() {
		var desc ocispec.Descriptor
		if err := dec.Decode(&desc); err != nil {
			return err
		}
		if err := desc.Digest.Validate(); err != nil {
			bad = cmp.Or(bad, fmt.Errorf("an entry of manifests: %w", err))
			continue
		}
		if err := each(desc); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	return bad
}

// indexError says why decoding an index failed: reading it, its size, or
// its content.
func indexError(limited *io.LimitedReader, err error, what string) error {
	var rerr *readError
	switch {
	case errors.As(err, &rerr):
		return rerr
	case limited.N <= 0:
		return fmt.Errorf("%s is over %d bytes", ocispec.ImageIndexFile, MaxIndexSize)
	case err == nil || err == io.EOF && what != "":
		return errors.New(what)
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

// readError is a failure to read an index, rather than to parse it.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// errorReader marks the errors of r, but its end, as *readError.
type errorReader struct{ r io.Reader }

func (e *errorReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		err = &readError{err: err}
	}
	return n, err
}
