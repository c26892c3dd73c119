package pack

import (
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestSourceDate(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Time
		bad  bool
	}{
		{"", time.Time{}, false},
		{"1700000000", time.Unix(1700000000, 0), false},
		{"0", time.Unix(0, 0), false},
		{"yesterday", time.Time{}, true},
		{"1.5", time.Time{}, true},
	} {
		got, err := SourceDate(func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return c.env
			}
			return ""
		})
		if c.bad {
			if errdefs.Of(err) != errdefs.InvalidArgument {
				t.Errorf("%q: %v, want an invalid-argument error", c.env, err)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q: %v %v, want %v", c.env, got, err, c.want)
		}
	}
}
