// Package mounts remembers, per registry, which repositories hold a blob
// stax pushed or pulled, so that pushing it to another repository of the
// same registry can mount it from one of them (cross-repository mount)
// instead of uploading it again.
//
// The record is a cache: a missing, unreadable or malformed file is an
// empty record, entries that do not parse are dropped, and a mount from a
// repository that no longer has the blob only costs a refused request.
package mounts

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/pkg/store"
)

// FileName is the record in $STAX_HOME.
const FileName = "mounts.json"

const (
	// maxFileSize bounds what Load reads: a larger file is not stax's.
	maxFileSize = 8 << 20
	// maxBlobs is how many blobs a registry's record keeps, the most
	// recently recorded ones.
	maxBlobs = 4096
	// maxRepositories is how many repositories a blob's entry keeps, the
	// most recent first: each is a mount to try, and a refused one costs a
	// request.
	maxRepositories = 3
)

// Record is the repositories known to hold each blob, per registry host.
// It is safe for concurrent use.
type Record struct {
	path string

	mu         sync.Mutex
	registries map[string]*blobs
	changed    bool
}

// blobs are one registry's entries, oldest first.
type blobs struct {
	order []digest.Digest
	repos map[digest.Digest][]string
}

// file is the JSON form of a Record.
type file struct {
	Version    int                      `json:"version"`
	Registries map[string][]fileEntries `json:"registries"`
}

type fileEntries struct {
	Digest       digest.Digest `json:"digest"`
	Repositories []string      `json:"repositories"`
}

// Load reads the record at path. What cannot be read is treated as an
// empty record, except a failure to read an existing file, which is
// returned with the empty record.
func Load(path string) (*Record, error) {
	r := &Record{path: path, registries: map[string]*blobs{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return r, err
	}
	var in file
	if len(data) > maxFileSize || json.Unmarshal(data, &in) != nil || in.Version != 1 {
		return r, nil
	}
	for host, entries := range in.Registries {
		for _, e := range entries {
			for i := len(e.Repositories) - 1; i >= 0; i-- {
				r.add(host, e.Repositories[i], e.Digest)
			}
		}
	}
	r.changed = false
	return r, nil
}

// LoadHome reads the record in $STAX_HOME, as Load does.
func LoadHome() (*Record, error) {
	return LoadHomeFrom(os.Getenv)
}

// LoadHomeFrom is LoadHome with the variables read through getenv.
func LoadHomeFrom(getenv func(string) string) (*Record, error) {
	home, err := store.HomeFrom(getenv)
	if err != nil {
		return &Record{registries: map[string]*blobs{}}, err
	}
	return Load(filepath.Join(home, FileName))
}

// Add records that repository of the registry host holds the blobs ds.
// Names that are not a valid host, repository or digest are ignored.
func (r *Record) Add(host, repository string, ds ...digest.Digest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range ds {
		r.add(host, repository, d)
	}
}

func (r *Record) add(host, repository string, d digest.Digest) {
	if !valid(host, repository, d) {
		return
	}
	b := r.registries[host]
	if b == nil {
		b = &blobs{repos: map[digest.Digest][]string{}}
		r.registries[host] = b
	}
	repos, known := b.repos[d]
	if known && len(repos) > 0 && repos[0] == repository && b.order[len(b.order)-1] == d {
		return // nothing new
	}
	if known {
		b.order = slices.DeleteFunc(b.order, func(x digest.Digest) bool { return x == d })
	}
	b.order = append(b.order, d)
	repos = slices.DeleteFunc(slices.Clone(repos), func(x string) bool { return x == repository })
	repos = append([]string{repository}, repos...)
	b.repos[d] = repos[:min(len(repos), maxRepositories)]
	for len(b.order) > maxBlobs {
		delete(b.repos, b.order[0])
		b.order = b.order[1:]
	}
	r.changed = true
}

// Sources are the repositories of the registry host known to hold d, the
// most recently recorded first, without except.
func (r *Record) Sources(host string, d digest.Digest, except string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.registries[host]
	if b == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(b.repos[d]), func(x string) bool { return x == except })
}

// Save writes the record back, in one step, if it changed.
func (r *Record) Save() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.changed || r.path == "" { // a record LoadHome could not place
		return nil
	}
	out := file{Version: 1, Registries: map[string][]fileEntries{}}
	for host, b := range r.registries {
		for _, d := range b.order {
			out.Registries[host] = append(out.Registries[host], fileEntries{Digest: d, Repositories: b.repos[d]})
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	// A push to a registry may be the first thing stax writes in its home.
	if err := os.MkdirAll(filepath.Dir(r.path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(r.path, data, 0o644); err != nil {
		return err
	}
	r.changed = false
	return nil
}

// valid reports whether host, repository and d are names a registry
// accepts: a record is read from disk, and its names go into URLs.
func valid(host, repository string, d digest.Digest) bool {
	ref := registry.Reference{Registry: host, Repository: repository}
	return ref.ValidateRegistry() == nil && ref.ValidateRepository() == nil && d.Validate() == nil
}
