// Package tokens estimates how many model tokens a text costs.
//
// stax has no tokenizer: each model family has its own, and none is
// normative. The estimate is the common rule of thumb for English prose and
// code, one token per four bytes, rounded up:
//
//	tokens = ceil(bytes / 4)
//
// It is deliberately simple, so that a user can check a budget by hand
// (wc -c) and so that the same text always gets the same estimate. Every
// token count stax prints or checks (the SKILL.md body lint, stax render
// --budget) comes from this function.
package tokens

// BytesPerToken is the divisor of the estimate.
const BytesPerToken = 4

// Estimate is the estimated token count of n bytes of text: ceil(n/4).
// Negative sizes count as zero.
func Estimate(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return (n + BytesPerToken - 1) / BytesPerToken
}

// Bytes is the largest byte size whose estimate fits in t tokens.
func Bytes(t int64) int64 {
	if t <= 0 {
		return 0
	}
	return t * BytesPerToken
}
