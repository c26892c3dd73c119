package hiddentext

import "fmt"

// names are the Unicode names of the hidden code points outside the tag
// block, whose names follow from the ASCII character each one mirrors, and
// the variation selectors, which are numbered.
var names = map[rune]string{
	0x200B:  "ZERO WIDTH SPACE",
	0x200C:  "ZERO WIDTH NON-JOINER",
	0x200D:  "ZERO WIDTH JOINER",
	0x2060:  "WORD JOINER",
	0xFEFF:  "ZERO WIDTH NO-BREAK SPACE",
	0x202A:  "LEFT-TO-RIGHT EMBEDDING",
	0x202B:  "RIGHT-TO-LEFT EMBEDDING",
	0x202C:  "POP DIRECTIONAL FORMATTING",
	0x202D:  "LEFT-TO-RIGHT OVERRIDE",
	0x202E:  "RIGHT-TO-LEFT OVERRIDE",
	0x2066:  "LEFT-TO-RIGHT ISOLATE",
	0x2067:  "RIGHT-TO-LEFT ISOLATE",
	0x2068:  "FIRST STRONG ISOLATE",
	0x2069:  "POP DIRECTIONAL ISOLATE",
	0xE0001: "LANGUAGE TAG",
	0xE0020: "TAG SPACE",
	0xE007F: "CANCEL TAG",
}

// asciiSymbolNames are the names of the ASCII punctuation characters, from
// which the names of the tag characters that mirror them are made.
var asciiSymbolNames = map[byte]string{
	'!': "EXCLAMATION MARK", '"': "QUOTATION MARK", '#': "NUMBER SIGN", '$': "DOLLAR SIGN",
	'%': "PERCENT SIGN", '&': "AMPERSAND", '\'': "APOSTROPHE", '(': "LEFT PARENTHESIS",
	')': "RIGHT PARENTHESIS", '*': "ASTERISK", '+': "PLUS SIGN", ',': "COMMA",
	'-': "HYPHEN-MINUS", '.': "FULL STOP", '/': "SOLIDUS", ':': "COLON",
	';': "SEMICOLON", '<': "LESS-THAN SIGN", '=': "EQUALS SIGN", '>': "GREATER-THAN SIGN",
	'?': "QUESTION MARK", '@': "COMMERCIAL AT", '[': "LEFT SQUARE BRACKET", '\\': "REVERSE SOLIDUS",
	']': "RIGHT SQUARE BRACKET", '^': "CIRCUMFLEX ACCENT", '_': "LOW LINE", '`': "GRAVE ACCENT",
	'{': "LEFT CURLY BRACKET", '|': "VERTICAL LINE", '}': "RIGHT CURLY BRACKET", '~': "TILDE",
}

var digitNames = [...]string{"ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"}

// Name is the Unicode name of a hidden code point, "" for any other.
func Name(r rune) string {
	if n, ok := names[r]; ok {
		return n
	}
	switch {
	case r >= 0xFE00 && r <= 0xFE0F:
		return fmt.Sprintf("VARIATION SELECTOR-%d", r-0xFE00+1)
	case r >= supplementarySelectorFirst && r <= 0xE01EF:
		return fmt.Sprintf("VARIATION SELECTOR-%d", r-supplementarySelectorFirst+17)
	}
	if r <= tagFirst || r >= cancelTag {
		return ""
	}
	c := byte(r - tagFirst)
	switch {
	case c >= 'A' && c <= 'Z':
		return "TAG LATIN CAPITAL LETTER " + string(c)
	case c >= 'a' && c <= 'z':
		return "TAG LATIN SMALL LETTER " + string(c-'a'+'A')
	case c >= '0' && c <= '9':
		return "TAG DIGIT " + digitNames[c-'0']
	case asciiSymbolNames[c] != "":
		return "TAG " + asciiSymbolNames[c]
	}
	return "" // unassigned in the tag block
}

// describe names r as Unicode charts do: "U+202E RIGHT-TO-LEFT OVERRIDE".
func describe(r rune) string {
	if n := Name(r); n != "" {
		return fmt.Sprintf("U+%04X %s", r, n)
	}
	return fmt.Sprintf("U+%04X (unassigned tag character)", r)
}
