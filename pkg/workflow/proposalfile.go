package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/proposal"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/trust"
)

// A proposal travels as a file, and a signed one with its signature beside
// it (proposal.SignatureSuffix): stax propose writes both, stax apply
// checks the second against the first before it reads anything else.

// WriteProposal writes the proposal to path and, with signer, its
// signature beside it; the signature is made first, so a key that cannot
// sign leaves nothing behind, and a signature left from an earlier
// proposal at path is replaced or removed, never kept beside a new one.
func WriteProposal(ctx context.Context, path string, data []byte, signer *signature.KeySigner) error {
	sigPath := path + proposal.SignatureSuffix
	var signed []byte
	if signer != nil {
		var err error
		if signed, err = signature.SignBlob(ctx, signer, filepath.Base(path), proposal.PredicateType, data); err != nil {
			return errdefs.Invalid(fmt.Errorf("sign the proposal with %s: %w", signer.ID(), err))
		}
	} else if err := os.Remove(sigPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errdefs.MarkLocal(fmt.Errorf("remove the signature of an earlier proposal: %w", err))
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return errdefs.MarkLocal(fmt.Errorf("write the proposal: %w", err))
	}
	if signed == nil {
		return nil
	}
	if err := atomicfile.WriteFile(sigPath, signed, 0o644); err != nil {
		os.Remove(path) // a signed proposal is sent with its signature, or not at all
		return errdefs.MarkLocal(fmt.Errorf("write the proposal's signature: %w", err))
	}
	return nil
}

// proposalCheck is the check of the signature of the proposal at
// proposalPath, at signaturePath (empty: beside it), against keys: the
// proposal.Options.Check of stax apply --key. notes learns who signed.
func proposalCheck(proposalPath, signaturePath string, keys []string, notes io.Writer) (func([]byte) error, error) {
	sigPath := signaturePath
	if sigPath == "" {
		if proposalPath == "-" {
			return nil, errdefs.Invalid(errors.New("a proposal read from stdin has no signature beside it: pass --signature FILE"))
		}
		sigPath = proposalPath + proposal.SignatureSuffix
	}
	verifiers, err := trust.NewLoader(nil).Verifiers(trust.Trusted{Keys: keys})
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	signed, err := readSignature(sigPath)
	if err != nil {
		return nil, err
	}
	return func(data []byte) error {
		signer, err := signature.VerifyBlob(signed, proposal.PredicateType, data, verifiers)
		if err != nil {
			return errdefs.MarkDataLoss(fmt.Errorf("the proposal %s does not verify with its signature %s: %w", proposalPath, sigPath, err))
		}
		fmt.Fprintf(notes, "proposal signed by %s\n", signer)
		return nil
	}, nil
}

// readSignature reads a detached signature file, bounded as the
// signatures stax reads from registries are.
func readSignature(path string) ([]byte, error) {
	f, err := regularfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errdefs.MarkDataLoss(fmt.Errorf("%s: no signature: the sender signs with stax propose --key, which writes it beside the proposal; or pass --signature FILE", path))
	}
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, artifact.MaxMetadataSize+1))
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	if len(data) > artifact.MaxMetadataSize {
		return nil, errdefs.MarkDataLoss(fmt.Errorf("%s: a signature is at most %d bytes", path, artifact.MaxMetadataSize))
	}
	return data, nil
}
