package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// CachePruned is what Cache.Prune removed, or would remove.
type CachePruned struct {
	// Repositories counts the cached repositories removed, and Bytes
	// their size.
	Repositories int   `json:"repositories"`
	Bytes        int64 `json:"bytes"`
}

// repoDirName is the name of a cached repository (repoDir): the first 32
// hex digits of its URL's digest, which also name its lock.
var repoDirName = regexp.MustCompile(`^([0-9a-f]{32})\.git$`)

// prunedPrefix names a repository Prune moved aside to remove: a prune
// killed while it removed one leaves it, and the next removes it.
const prunedPrefix = ".stax-git-pruned-"

// Prune removes from the cache the repositories that are not keep's (by
// Reference.Repository, the URL stax.lock records), with what a killed
// prune left. A repository another stax holds, fetching into it or
// reading it, is left: it is being used. A dry run counts the same and
// removes nothing. Each repository is moved aside under its lock, then
// removed: no fetch ever finds one half removed.
func (c *Cache) Prune(ctx context.Context, keep []string, dryRun bool) (CachePruned, error) {
	kept := map[string]bool{}
	for _, url := range keep {
		kept[repoKey(url)] = true
	}
	var out CachePruned
	entries, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, errdefs.MarkLocal(fmt.Errorf("prune the git cache %s: %w", c.Dir, err))
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		dir := filepath.Join(c.Dir, e.Name())
		if strings.HasPrefix(e.Name(), prunedPrefix) && !dryRun {
			os.RemoveAll(dir)
			continue
		}
		m := repoDirName.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() || kept[m[1]] {
			continue
		}
		removed, size, err := c.removeRepository(ctx, m[1], dir, dryRun)
		if err != nil {
			return out, err
		}
		if !removed {
			continue
		}
		out.Repositories++
		out.Bytes += size
	}
	return out, nil
}

// removeRepository removes the cached repository dir, whose lock is named
// by key, unless another stax holds that lock; it says whether it did, and
// the size it removed. A dry run takes the lock too, and removes nothing:
// it says what a prune would remove now. The size is measured under the
// lock, which a fetch into dir holds too, and dir may be gone by then:
// another prune removed it while this one listed the cache.
func (c *Cache) removeRepository(ctx context.Context, key, dir string, dryRun bool) (bool, int64, error) {
	// The lock is tried, not waited for: a prune holds the local store's
	// lock, which a stax using the repository may be about to ask for.
	tryCtx, cancel := context.WithCancel(ctx)
	cancel()
	unlock, err := filelock.Lock(tryCtx, c.LockDir, lockName(key), "pruning the git cache", nil)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return false, 0, nil // tried, not waited for: another stax holds it
		}
		return false, 0, fmt.Errorf("prune the git cache %s: %w", c.Dir, err)
	}
	defer unlock()
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil
	}
	size := dirSize(dir)
	if dryRun {
		return true, size, nil
	}
	aside := filepath.Join(c.Dir, prunedPrefix+key)
	if err := os.Rename(dir, aside); err != nil {
		return false, 0, errdefs.MarkLocal(fmt.Errorf("prune the git cache %s: %w", c.Dir, err))
	}
	if err := os.RemoveAll(aside); err != nil {
		return false, 0, errdefs.MarkLocal(fmt.Errorf("prune the git cache %s: %w", c.Dir, err))
	}
	return true, size, nil
}

// dirSize is the size of the regular files under dir; what cannot be
// read counts nothing.
func dirSize(dir string) int64 {
	var size int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	return size
}
