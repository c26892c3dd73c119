package skill

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidName checks a skill name against the Agent Skills rule: 1 to 64
// characters matching ^[a-z0-9]+(-[a-z0-9]+)*$. The error says what is
// wrong, so that it can be shown to the author as is.
//
// The stax specification's pattern ^[a-z0-9][a-z0-9-]*[a-z0-9]$ would also
// accept "a--b" and reject "a"; the stricter Agent Skills rule is used so
// that every name stax accepts loads in every runtime.
func ValidName(name string) error {
	if name == "" {
		return errors.New("name is empty")
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		return fmt.Errorf("name is %d characters long; the limit is %d", n, MaxNameLength)
	}
	if lower := strings.ToLower(name); lower != name {
		if ValidName(lower) == nil {
			return fmt.Errorf("name %q contains uppercase letters; use %q", name, lower)
		}
		return fmt.Errorf("name %q contains uppercase letters; use only lowercase letters, digits and hyphens", name)
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
		default:
			return fmt.Errorf("name %q contains %q; use only lowercase letters, digits and hyphens", name, r)
		}
	}
	switch {
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("name %q starts with a hyphen; start and end it with a letter or digit", name)
	case strings.HasSuffix(name, "-"):
		return fmt.Errorf("name %q ends with a hyphen; start and end it with a letter or digit", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("name %q contains consecutive hyphens; separate words with a single hyphen", name)
	}
	return nil
}
