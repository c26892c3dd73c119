// Package userinfo keeps the credentials a URL or a reference may be
// written with (USER:PASSWORD@HOST) out of the messages that quote it.
package userinfo

import "strings"

// Mask replaces the credentials of the URLs in text (scheme://USER:PASS@)
// with ***, for any message that may quote a URL: git's own included.
func Mask(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "://")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i+3])
		text = text[i+3:]
		end := strings.IndexFunc(text, func(r rune) bool { return r == '/' || r == '\'' || r == '"' || r <= ' ' })
		if end < 0 {
			end = len(text)
		}
		if at := strings.LastIndex(text[:end], "@"); at >= 0 {
			b.WriteString("***")
			text = text[at:]
		}
	}
}

// MaskReference is Mask of s, one reference or URL as it was written,
// which may also carry credentials without a scheme
// (USER:PASS@HOST/REPOSITORY, pasted from a URL): an "@" before the first
// "/" ends them, since a host holds none and a reference's own "@", the
// digest's, follows its repository.
func MaskReference(s string) string {
	if strings.Contains(s, "://") {
		return Mask(s)
	}
	host, _, found := strings.Cut(s, "/")
	if at := strings.LastIndex(host, "@"); found && at >= 0 {
		return "***" + s[at:]
	}
	return s
}
