// Package bytesize writes a count of bytes as a person reads it. It
// imports nothing of stax, so that every package that names a limit in a
// message, the layer codec and the reader of user-named files included,
// says sizes one way.
package bytesize

import "fmt"

// Format writes n bytes in binary units: 512 B, 1.5 KiB, 4.0 MiB.
func Format(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
