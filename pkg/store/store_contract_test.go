package store_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

func TestKey(t *testing.T) {
	tests := map[string]string{
		"docker.io/library/base:1":            "base:1",
		"ghcr.io/acme/skills:1.0.0":           "ghcr.io/acme/skills:1.0.0",
		"localhost:5000/a/b:latest":           "localhost:5000/a/b:latest",
		"ghcr.io/acme/skills:1@sha256:" + hex: "ghcr.io/acme/skills:1",
		"ghcr.io/acme/skills@sha256:" + hex:   "",
	}
	for in, want := range tests {
		ref, err := reference.Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := store.Key(ref); got != want {
			t.Errorf("Key(%s) = %q, want %q", in, got, want)
		}
	}
}

const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestTags(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	tags, err := store.Tags(ctx, dir)
	if err != nil || len(tags) != 0 {
		t.Fatalf("Tags of no store = %v, %v; want none", tags, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("listing the tags of no store created it: %v", err)
	}

	s, err := store.OpenLocal(ctx, dir, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	blob := []byte("a blob to tag")
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	if err := s.Push(ctx, desc, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"zeta:1", "alpha:2", "ghcr.io/m/n:3"} {
		if err := s.Tag(ctx, desc, tag); err != nil {
			t.Fatal(err)
		}
	}
	// Listed while the store is open for writing, as a command writing
	// into it lists them to name the nearest to a mistyped one: the list
	// does not wait for the writer's lock, which the same command holds.
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tags, err = store.Tags(deadline, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"alpha:2", "ghcr.io/m/n:3", "zeta:1"}; !slices.Equal(tags, want) {
		t.Errorf("Tags = %v, want %v (sorted)", tags, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// A writer excludes every other user of the local store; readers share it.
func TestOpenLocalLocks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	open := func(mode store.Mode) (*store.Store, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		return store.OpenLocal(ctx, dir, mode)
	}
	tests := []struct {
		held, want store.Mode
		blocked    bool
	}{
		{store.ReadOnly, store.ReadOnly, false},
		{store.ReadOnly, store.ReadWrite, true},
		{store.ReadWrite, store.ReadOnly, true},
		{store.ReadWrite, store.ReadWrite, true},
	}
	for _, tt := range tests {
		held, err := open(tt.held)
		if err != nil {
			t.Fatal(err)
		}
		second, err := open(tt.want)
		if blocked := err != nil; blocked != tt.blocked {
			t.Errorf("mode %d while %d is held: blocked = %v (%v), want %v", tt.want, tt.held, blocked, err, tt.blocked)
		}
		if err != nil && (!errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "lock local store "+dir)) {
			t.Errorf("blocked open: %v, want a lock error naming the store", err)
		}
		if second != nil {
			second.Close()
		}
		held.Close()
		// Once released, a writer gets in.
		w, err := open(store.ReadWrite)
		if err != nil {
			t.Fatalf("writer after release: %v", err)
		}
		w.Close()
	}
}

func TestHome(t *testing.T) {
	tests := []struct {
		name, staxHome, xdg, want string
	}{
		{"STAX_HOME wins", "/s", "/x", "/s"},
		{"XDG_DATA_HOME next", "", "/x", "/x/stax"},
		{"home directory last", "", "", filepath.Join("/h", ".local", "share", "stax")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(store.EnvHome, tt.staxHome)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			t.Setenv("HOME", "/h")
			home, err := store.Home()
			if err != nil || home != tt.want {
				t.Fatalf("Home = %q, %v; want %q", home, err, tt.want)
			}
			if d, _ := store.DefaultDir(); d != filepath.Join(tt.want, "store") {
				t.Errorf("DefaultDir = %q", d)
			}
			if d, _ := store.LockDir(); d != filepath.Join(tt.want, "locks") {
				t.Errorf("LockDir = %q", d)
			}
		})
	}
}

// Every change of the index replaces index.json, by a rename, rather than
// rewriting the file in place, which a kill would leave torn.
func TestIndexIsReplacedNotRewritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := store.OpenLocal(ctx, dir, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	blob := []byte("a blob to tag")
	desc := content.NewDescriptorFromBytes("application/octet-stream", blob)
	if err := s.Push(ctx, desc, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	indexPath := filepath.Join(dir, "index.json")
	for _, tag := range []string{"a:1", "b:2"} {
		before, err := os.Stat(indexPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Tag(ctx, desc, tag); err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(indexPath)
		if err != nil {
			t.Fatal(err)
		}
		if os.SameFile(before, after) {
			t.Errorf("tagging %s rewrote index.json in place", tag)
		}
	}
}
