package signature_test

import (
	"context"
	"testing"
	"time"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/signature"
)

// BenchmarkVerify measures verifying a signed package in an OCI layout
// against the baseline of reading its skills layer once (which Verify does
// to check the signed file digests), and reports the ratio: what the
// signature checks cost on top of reading the content.
func BenchmarkVerify(b *testing.B) {
	ctx := context.Background()
	target := places[2].open(b)
	desc := packExamples(b, target, "")
	signer, verifier := signingKey(b, "")
	if _, err := signature.Sign(ctx, target, desc, signer, signature.SignOptions{}); err != nil {
		b.Fatal(err)
	}
	pkg, err := artifact.Fetch(ctx, target, desc)
	if err != nil {
		b.Fatal(err)
	}
	opts := signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}}
	var read, verify time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := signature.Contents(ctx, target, pkg, layers.Limits{}); err != nil {
			b.Fatal(err)
		}
		read += time.Since(start)
		start = time.Now()
		if _, err := signature.Verify(ctx, target, desc, opts); err != nil {
			b.Fatal(err)
		}
		verify += time.Since(start)
	}
	b.ReportMetric(float64(verify)/float64(read), "verify/read")
}
