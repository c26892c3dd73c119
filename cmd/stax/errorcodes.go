package main

import (
	"context"
	"crypto/x509"
	"errors"
	"io/fs"
	"net"
	"net/http"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/yamlerr"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// errorCode is one stable code: the first whose match accepts the error
// names it. File and line come from where when it is set.
type errorCode struct {
	Code  string
	Hint  string
	match func(error) bool
	where func(error) (string, int)
}

// errorCodes are tried in order, most specific first;
// docs/output-and-errors.md lists them (TestJSONErrorsCodesDocumented). An
// error none matches gets the code of its exit code class, from exitClasses.
var errorCodes = []errorCode{
	{Code: "usage", Hint: "run the command with --help for its arguments and flags",
		match: is[usageError]},
	{Code: "interrupted", match: func(err error) bool { return errors.Is(err, context.Canceled) }},
	{Code: "invalid-reference", Hint: "a reference is HOST/REPOSITORY[:TAG|@DIGEST] in lowercase, a local store name such as org/skills:1.0.0, or oci:PATH[:TAG]",
		match: func(err error) bool { return errors.Is(err, reference.ErrInvalid) }},
	{Code: "skills-invalid", Hint: "run stax validate to list every problem with its fix",
		match: is[*pack.InvalidError], where: func(err error) (string, int) {
			var e *pack.InvalidError
			if errors.As(err, &e) && e.Report != nil && len(e.Report.Errors) > 0 {
				return e.Report.Errors[0].File, e.Report.Errors[0].Line
			}
			return "", 0
		}},
	{Code: "yaml-invalid", Hint: "the message says what the line should hold",
		match: is[*yamlerr.Error], where: func(err error) (string, int) {
			var e *yamlerr.Error
			errors.As(err, &e)
			return e.File, e.Line
		}},
	{Code: "size-limit", Hint: "raise the limit with --max-size",
		match: is[*layers.SizeError]},
	{Code: "digest-mismatch", Hint: "the content was altered after it was published; fetch it again or from another source",
		match: func(err error) bool { return errors.Is(err, content.ErrMismatchedDigest) }},
	{Code: "layer-corrupt", Hint: "the package was pushed with a broken layer; push it again, built from its source",
		match: func(err error) bool {
			var e *layers.CorruptError
			return errors.As(err, &e) && e.Intact
		}},
	{Code: "unsafe-entry", Hint: "the package holds a path stax never writes; do not install it",
		match: is[*layers.UnsafeEntryError]},
	{Code: "hidden-text", Hint: "remove the hidden characters, or pass --allow-hidden-text if they are meant to be there",
		match: is[*hiddentext.Error], where: func(err error) (string, int) {
			var e *hiddentext.Error
			if errors.As(err, &e) && e.Path != "" {
				return e.Path, e.Line
			}
			return "", 0 // a file of a layer: the message names it
		}},
	{Code: "install-conflict", Hint: "rename or remove those skills, or pass --force to replace them",
		match: is[*install.ConflictError]},
	{Code: "memory-merge", Hint: "make your entry the same as the new version's (add your change as a new dated entry) or fix the file named, or pass --force to take the new MEMORY.md (yours is moved to .stax/backup)",
		match: is[*stateful.MergeError], where: func(err error) (string, int) {
			var e *stateful.MergeError
			if errors.As(err, &e) && !e.Upstream {
				return e.File, e.Line
			}
			return "", 0 // the new version's file: the message names it
		}},
	{Code: "tag-exists", Hint: "give the release a new tag, or leave out --no-overwrite to move the tag",
		match: is[*transfer.TagExistsError]},
	{Code: "registry-unauthorized", Hint: "log in with stax login HOST",
		match: func(err error) bool {
			return registryStatus(err) == http.StatusUnauthorized || errors.Is(err, auth.ErrBasicCredentialNotFound)
		}},
	{Code: "registry-denied", Hint: "use credentials allowed to access the repository (for GHCR, a token with read:packages or write:packages)",
		match: func(err error) bool { return registryStatus(err) == http.StatusForbidden }},
	{Code: "registry-rate-limited", Hint: "wait, or log in for a higher limit",
		match: func(err error) bool { return registryStatus(err) == http.StatusTooManyRequests }},
	{Code: "tls-untrusted", Hint: "pass --ca-file with the registry's CA, or --insecure to skip verification",
		match: func(err error) bool {
			var ca x509.UnknownAuthorityError
			var host x509.HostnameError
			return errors.As(err, &ca) || errors.As(err, &host)
		}},
	{Code: "registry-unreachable", Hint: "check the host and port, and that the registry is running",
		match: is[*net.OpError]},
	{Code: "file-not-found", match: func(err error) bool { return errors.Is(err, fs.ErrNotExist) }, where: pathOf},
	{Code: "permission-denied", match: func(err error) bool { return errors.Is(err, fs.ErrPermission) }, where: pathOf},
}

// exitClasses are the codes of errors no entry of errorCodes matches:
// the class of their exit code.
var exitClasses = map[int]string{
	1: "invalid",
	2: "filesystem",
	3: "registry",
	4: "resolution",
	5: "materialization",
	6: "verification",
}

func is[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func registryStatus(err error) int {
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		return resp.StatusCode
	}
	return 0
}

func pathOf(err error) (string, int) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path, 0
	}
	return "", 0
}
