package gitsource

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// materializeEnv makes the test binary a stax that materializes one tree
// and exits, for the tests of processes sharing a cache: its value is
// STAX_HOME, the reference, the commit and the destination, separated by
// newlines.
const materializeEnv = "GITSOURCE_TEST_MATERIALIZE"

func TestMain(m *testing.M) {
	if job := os.Getenv(materializeEnv); job != "" {
		os.Exit(materializeJob(job))
	}
	os.Exit(m.Run())
}

func materializeJob(job string) int {
	f := strings.Split(job, "\n")
	r, err := Parse(f[1])
	if err == nil {
		_, err = NewCache(f[0]).Materialize(context.Background(), r, f[2], f[3])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
