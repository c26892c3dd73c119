package hiddentext

import "strings"

// textExtensions are the extensions of the files skills hold that agents
// read or run as text: documents (a skill's own SKILL.md, CALIBRATION.md,
// EXAMPLES.md and MEMORY.md among them), data and scripts.
var textExtensions = map[string]bool{
	".md": true, ".markdown": true, ".txt": true,
	".yaml": true, ".yml": true, ".json": true, ".toml": true, ".csv": true, ".xml": true,
	".html": true, ".htm": true, ".css": true,
	".sh": true, ".bash": true, ".zsh": true, ".ps1": true, ".bat": true, ".cmd": true,
	".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".rb": true, ".go": true, ".rs": true,
}

// IsTextName reports whether the file name (a base name or a path, with
// slashes or backslashes) is read as text: its extension, in any letter
// case, is one of a document, data or a script. Such a file is never
// exempt from the check as binary: a NUL byte and an invalid byte in a
// SKILL.md must not hide what follows them.
func IsTextName(name string) bool {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	dot := strings.LastIndexByte(base, '.')
	return dot > 0 && textExtensions[strings.ToLower(base[dot:])]
}
