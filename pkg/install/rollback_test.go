package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// undoMoves says which moves it could not undo, instead of leaving a
// half-restored folder without a word.
func TestUndoMovesReportsWhatItCouldNotUndo(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "staging"), 0o755)
	os.WriteFile(filepath.Join(dir, "staging", "a"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "staging", "b"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "skills"), 0o755)
	base, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	// a goes back to skills/a; b's place is under a directory that is gone.
	moves := [][2]string{{"skills/a", "staging/a"}, {"gone/b", "staging/b"}}
	err = undoMoves(base, moves)
	if err == nil || !strings.Contains(err.Error(), "staging/b") || strings.Contains(err.Error(), "staging/a") {
		t.Fatalf("undoMoves = %v; want the move of staging/b only", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "skills", "a")); err != nil {
		t.Errorf("the move that could be undone was not: %v", err)
	}
	if err := undoMoves(base, moves[:1]); err != nil {
		t.Errorf("undoing again: %v", err)
	}
}
