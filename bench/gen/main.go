// Command gen writes a synthetic skill library for bench/compare.sh.
//
//	go run ./bench/gen -dir DIR -first 0 -count 5000 [-variant 0]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/stax-dev/stax/internal/skillgen"
)

func main() {
	dir := flag.String("dir", "", "directory to write the skills into")
	first := flag.Int("first", 0, "number of the first skill")
	count := flag.Int("count", 500, "how many skills")
	size := flag.Int("size", skillgen.DefaultSize, "bytes per skill, about")
	variant := flag.Int("variant", 0, "changes the skills' content, for libraries that override each other")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "gen: -dir is required")
		os.Exit(1)
	}
	if err := skillgen.Write(*dir, *first, *count, *variant, *size); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
