package proposal

import (
	"bytes"
	"errors"
	"io"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// MaxSize bounds the proposal ApplyFile reads.
const MaxSize = 32 << 20

// PredicateType is the predicate type of the in-toto statement a
// proposal's detached signature signs (a Sigstore bundle, beside the
// proposal as SignatureSuffix): the subject is the proposal's bytes.
const PredicateType = "https://stax.dev/proposal/v1"

// SignatureSuffix names a proposal's detached signature after the
// proposal's own file: proposal.json.sigstore.json.
const SignatureSuffix = ".sigstore.json"

// ApplyFileResult is what ApplyFile did, or would do.
type ApplyFileResult struct {
	*Result
	// Applied is set when the change was written: not for a dry run, a
	// proposal that changes nothing, or one rejected.
	Applied bool `json:"applied"`
}

// ApplyFile reads the proposal in the file at path, or in stdin when path
// is "-", and applies it (see Apply). A proposal that is rejected, for its
// format or by another rule, returns a result holding the rules it broke
// with the *RejectedError, an invalid argument; any other failure is local
// and returns no outcome.
func ApplyFile(path string, stdin io.Reader, opts Options) (*ApplyFileResult, error) {
	in := stdin
	if path != "-" {
		f, err := regularfile.Open(path)
		if err != nil {
			return nil, errdefs.MarkLocal(err)
		}
		defer f.Close()
		in = f
	}
	if opts.Check != nil {
		// Read once, so that the bytes Check sees are the ones parsed.
		data, err := io.ReadAll(io.LimitReader(in, MaxSize+1))
		if err != nil {
			return nil, errdefs.MarkLocal(err)
		}
		if len(data) <= MaxSize {
			if err := opts.Check(data); err != nil {
				return nil, err
			}
		}
		in = bytes.NewReader(data)
	}
	p, err := Parse(in, MaxSize)
	var res *Result
	if err == nil {
		res, err = Apply(p, opts)
	}
	var rejected *RejectedError
	switch {
	case errors.As(err, &rejected):
		if res == nil {
			res = &Result{Rules: rejected.Rules, Skills: []SkillChange{}, Warnings: []string{}}
		}
		return &ApplyFileResult{Result: res}, errdefs.Invalid(err)
	case err != nil:
		return nil, errdefs.MarkLocal(err)
	}
	return &ApplyFileResult{Result: res, Applied: !res.DryRun && !res.NoOp}, nil
}
