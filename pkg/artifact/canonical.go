package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Canonical re-encodes v with sorted keys and no whitespace. Struct field
// order is a property of the Go source, so the keys of every object are
// sorted here, as encoding/json sorts those of a map; strings are written
// as a json.Encoder without HTML escaping writes them. The encoded form of
// v is rewritten in one pass, without decoding it into generic values:
// the config of a large library held those in the thousands.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode canonical JSON: %w", err)
	}
	out := bytes.NewBuffer(make([]byte, 0, len(raw)))
	if err := (&canonicalizer{out: out}).whole(raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type canonicalizer struct {
	out *bytes.Buffer
	// enc writes strings that need escaping; tmp is its output.
	enc *json.Encoder
	tmp bytes.Buffer
	// members is a stack: each object being written holds the top of it.
	members []member
}

var errTruncated = errors.New("unexpected end of JSON")

// whole writes the canonical form of raw, which holds one JSON value.
func (c *canonicalizer) whole(raw []byte) error {
	rest, err := c.value(raw)
	if err == nil && len(skipSpace(rest)) > 0 {
		err = errors.New("data after the value")
	}
	if err != nil {
		return fmt.Errorf("encode canonical JSON: %w", err)
	}
	return nil
}

// value writes the canonical form of the JSON value data starts with and
// returns what follows it.
func (c *canonicalizer) value(data []byte) ([]byte, error) {
	data = skipSpace(data)
	if len(data) == 0 {
		return nil, errTruncated
	}
	switch data[0] {
	case '{':
		return c.object(data[1:])
	case '[':
		return c.array(data[1:])
	case '"':
		end, err := stringEnd(data)
		if err != nil {
			return nil, err
		}
		return data[end:], c.string(data[:end])
	}
	end := bytes.IndexAny(data, ",}] \t\r\n")
	if end < 0 {
		end = len(data)
	}
	c.out.Write(data[:end]) // a number, true, false or null: as is
	return data[end:], nil
}

func (c *canonicalizer) array(data []byte) ([]byte, error) {
	c.out.WriteByte('[')
	data = skipSpace(data)
	for first := true; ; first = false {
		if len(data) == 0 {
			return nil, errTruncated
		}
		if data[0] == ']' {
			c.out.WriteByte(']')
			return data[1:], nil
		}
		if !first {
			if data[0] != ',' {
				return nil, fmt.Errorf("want , or ] in an array, found %q", data[0])
			}
			c.out.WriteByte(',')
			data = data[1:]
		}
		var err error
		if data, err = c.value(data); err != nil {
			return nil, err
		}
		data = skipSpace(data)
	}
}

// member is one key of an object with its value, still encoded. raw is
// the key as encoded, when it can be written as is.
type member struct {
	key, raw, value []byte
}

func (c *canonicalizer) object(data []byte) ([]byte, error) {
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	data = skipSpace(data)
	for first := true; ; first = false {
		if len(data) == 0 {
			return nil, errTruncated
		}
		if data[0] == '}' {
			data = data[1:]
			break
		}
		if !first {
			if data[0] != ',' {
				return nil, fmt.Errorf("want , or } in an object, found %q", data[0])
			}
			data = skipSpace(data[1:])
		}
		end, err := stringEnd(data)
		if err != nil {
			return nil, err
		}
		var m member
		if span := data[1 : end-1]; plainString(span) {
			m.key, m.raw = span, data[:end]
		} else {
			var key string
			if err := json.Unmarshal(data[:end], &key); err != nil {
				return nil, err
			}
			m.key = []byte(key)
		}
		data = skipSpace(data[end:])
		if len(data) == 0 || data[0] != ':' {
			return nil, errors.New("want : after an object key")
		}
		data = skipSpace(data[1:])
		rest, err := skipValue(data)
		if err != nil {
			return nil, err
		}
		m.value, data = data[:len(data)-len(rest)], skipSpace(rest)
		c.members = append(c.members, m)
	}
	members := c.members[base:]
	// Sorted as encoding/json sorts map keys; of a repeated key the last
	// value counts, as when decoding into a map.
	slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	c.out.WriteByte('{')
	wrote := false
	for i, m := range members {
		if i+1 < len(members) && bytes.Equal(members[i+1].key, m.key) {
			continue
		}
		if wrote {
			c.out.WriteByte(',')
		}
		wrote = true
		if m.raw != nil {
			c.out.Write(m.raw)
		} else if err := c.encodeString(string(m.key)); err != nil {
			return nil, err
		}
		c.out.WriteByte(':')
		if _, err := c.value(m.value); err != nil {
			return nil, err
		}
	}
	c.out.WriteByte('}')
	return data, nil
}

// string writes the encoded string s: as is when it escapes nothing (then
// it holds nothing a json.Encoder escapes either), else decoded and encoded
// again without HTML escaping.
func (c *canonicalizer) string(s []byte) error {
	if plainString(s[1 : len(s)-1]) {
		c.out.Write(s)
		return nil
	}
	var text string
	if err := json.Unmarshal(s, &text); err != nil {
		return err
	}
	return c.encodeString(text)
}

func (c *canonicalizer) encodeString(s string) error {
	if c.enc == nil {
		c.enc = json.NewEncoder(&c.tmp)
		c.enc.SetEscapeHTML(false)
	}
	c.tmp.Reset()
	if err := c.enc.Encode(s); err != nil {
		return err
	}
	c.out.Write(bytes.TrimSuffix(c.tmp.Bytes(), []byte("\n")))
	return nil
}

// plainString reports whether the text of an encoded string needs no
// decoding: no escape, and valid UTF-8 (which decoding would replace).
func plainString(text []byte) bool {
	return bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text)
}

// memberValue is where, in the encoded object data, the value of its
// member key starts and ends; -1, -1 when it has no such member.
func memberValue(data []byte, key string) (int, int, error) {
	if data = skipSpace(data); len(data) == 0 || data[0] != '{' {
		return 0, 0, errors.New("want an object")
	}
	for i := 1; ; {
		i += len(data[i:]) - len(skipSpace(data[i:]))
		if i < len(data) && data[i] == '}' {
			return -1, -1, nil
		}
		end, err := stringEnd(data[i:])
		if err != nil {
			return 0, 0, err
		}
		var k string
		if err := json.Unmarshal(data[i:i+end], &k); err != nil {
			return 0, 0, err
		}
		i += end
		i += len(data[i:]) - len(skipSpace(data[i:]))
		if i == len(data) || data[i] != ':' {
			return 0, 0, errors.New("want : after an object key")
		}
		i++
		i += len(data[i:]) - len(skipSpace(data[i:]))
		rest, err := skipValue(data[i:])
		if err != nil {
			return 0, 0, err
		}
		if k == key {
			return i, len(data) - len(rest), nil
		}
		i = len(data) - len(skipSpace(rest))
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
}

// stringEnd is the index just past the encoded string data starts with.
func stringEnd(data []byte) (int, error) {
	if len(data) == 0 || data[0] != '"' {
		return 0, errors.New("want a string")
	}
	for i := 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errTruncated
}

// skipValue returns what follows the JSON value data starts with.
func skipValue(data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, errTruncated
	}
	switch data[0] {
	case '"':
		end, err := stringEnd(data)
		if err != nil {
			return nil, err
		}
		return data[end:], nil
	case '{', '[':
		depth := 0
		for i := 0; i < len(data); i++ {
			switch data[i] {
			case '"':
				end, err := stringEnd(data[i:])
				if err != nil {
					return nil, err
				}
				i += end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return data[i+1:], nil
				}
			}
		}
		return nil, errTruncated
	}
	end := bytes.IndexAny(data, ",}] \t\r\n")
	if end < 0 {
		end = len(data)
	}
	return data[end:], nil
}

func skipSpace(data []byte) []byte {
	return bytes.TrimLeft(data, " \t\r\n")
}
