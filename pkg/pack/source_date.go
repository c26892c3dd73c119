package pack

import (
	"fmt"
	"strconv"
	"time"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// SourceDate is the time SOURCE_DATE_EPOCH names (getenv reads the
// environment), else zero (the epoch): the date of a reproducible build.
func SourceDate(getenv func(string) string) (time.Time, error) {
	env := getenv("SOURCE_DATE_EPOCH")
	if env == "" {
		return time.Time{}, nil
	}
	secs, err := strconv.ParseInt(env, 10, 64)
	if err != nil {
		return time.Time{}, errdefs.Invalid(fmt.Errorf("SOURCE_DATE_EPOCH=%q: want a number of seconds since the Unix epoch", env))
	}
	return time.Unix(secs, 0), nil
}
