// Package atomicfile replaces a file in one step: a reader sees the old
// content or the new, never a mix, and the new content is on disk (fsynced)
// before it replaces the old, so a crash leaves one or the other.
//
// On Unix it is github.com/google/renameio/v2, which does exactly this and
// can write through an *os.Root; renameio does not build for Windows, where
// the same steps are taken with a temporary file and os.Rename (MoveFileEx
// with MOVEFILE_REPLACE_EXISTING).
package atomicfile
