package main

import "github.com/stax-dev/stax/pkg/workflow"

// The tests decode the JSON of push, copy and pack into the result types
// those commands print, which live in package workflow.
type (
	transferResult = workflow.Transfer
	packResult     = workflow.PackResult
)
