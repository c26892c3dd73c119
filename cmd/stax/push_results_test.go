package main

import "github.com/stax-dev/stax/pkg/workflow"

// The tests decode the JSON of push, pack and verify into the result
// types those commands print, which live in package workflow.
type (
	transferResult      = workflow.Transfer
	packResult          = workflow.PackResult
	verifyPackageResult = workflow.VerifyResult
)
