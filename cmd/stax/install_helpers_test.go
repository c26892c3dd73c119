package main

import "github.com/stax-dev/stax/pkg/workflow"

// installResult is the JSON stax install prints, as the tests decode it.
type installResult = workflow.InstallResult
